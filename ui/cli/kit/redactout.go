package kit

import (
	"io"
	"os"

	"github.com/colabdash/colabdash/api"
)

// This file makes redaction a property of the streams, not of each verb:
// once Protect ran (runStreamsContext does it before any command is
// built), every byte written to Streams.Out and Streams.Err, by a verb,
// by cobra (help, usage, completion) or by a --json or --jq document,
// passes the redactor. The only way around it is Revealed, for the
// outputs whose purpose is a secret the user asked for: token, status
// --show-tokens and forward's local URL.

// redactWriter writes what it is given with every secret red knows (and
// every secret pattern) replaced. Each Write is redacted whole: the
// commands write whole lines, documents and server chunks.
type redactWriter struct {
	w   io.Writer
	red *api.Redactor
}

// Write writes p redacted; it reports len(p) on success, as the caller
// wrote all of it.
func (r *redactWriter) Write(p []byte) (int, error) {
	if _, err := r.w.Write(r.red.RedactBytes(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Protect makes red the redactor of everything s.Out and s.Err carry
// from now on, and of the strings a --jq filter sees (Redactor). Calling
// it again changes the redactor.
func (s *Streams) Protect(red *api.Redactor) {
	s.red = red
	for _, w := range []*io.Writer{&s.Out, &s.Err} {
		if rw, ok := (*w).(*redactWriter); ok {
			rw.red = red
			continue
		}
		if w == &s.Out {
			s.rawOut = *w
		}
		*w = &redactWriter{w: *w, red: red}
	}
}

// Redactor is the redactor of s's output (Protect); nil before Protect.
func (s *Streams) Redactor() *api.Redactor { return s.red }

// Revealed is stdout without the redactor: only for a secret the user
// asked to see (token's proxy token, status --show-tokens, forward's
// local URL with its token). It is s.Out itself before Protect.
func (s *Streams) Revealed() io.Writer {
	if s.rawOut != nil {
		return s.rawOut
	}
	return s.Out
}

// File is the *os.File under w (a stream, redacted or not), for what
// needs the terminal itself: its size, raw mode (the shell). ok is false
// when w writes elsewhere.
func File(w io.Writer) (f *os.File, ok bool) {
	if rw, isRW := w.(*redactWriter); isRW {
		w = rw.w
	}
	f, ok = w.(*os.File)
	return f, ok
}

// redactValue returns v, a decoded JSON document, with every string and
// object key redacted by red, so a --jq filter cannot rebuild a secret
// the text redaction would catch (by changing its case, cutting it,
// encoding it or splitting it into characters).
func redactValue(v any, red *api.Redactor) any {
	switch x := v.(type) {
	case string:
		return red.Redact(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[red.Redact(k)] = redactValue(e, red)
		}
		return out
	case []any:
		for i, e := range x {
			x[i] = redactValue(e, red)
		}
	}
	return v
}
