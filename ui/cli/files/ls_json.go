package files

// ls --json of a directory is written as the listing arrives, like ls's
// lines (ls_stream.go): the document's head (runtime, path, type) before
// the first entry, each entry encoded as it is decoded, on a line of its
// own, and written in blocks of lsFlushBytes cut between entries, and
// "ok" (with "error" when the listing failed midway) after the last. The
// head and the end are encoding/json's indented document; an entry is
// its compact form with a space after each ":" and ",", a quarter fewer
// bytes than its indented form (every byte passes the redactor). A
// directory of 100,000 entries costs the memory of a few blocks, not of
// the document. --jq needs
// the whole document and takes the collected listing instead (bounded by
// the listing's own limit of entries and by --jq's limits).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// lsJSONWriter writes one ls --json document in pieces. The blocks go
// through the output path (termtext.JSON, the redactor: most of the
// CPU a document costs) in a goroutine of their own, in order, while the
// next entries are decoded and encoded.
type lsJSONWriter struct {
	v     *verb
	doc   LsJSON // runtime, path and type; Entries empty
	buf   []byte
	n     int         // entries written
	begun bool        // the head is written
	err   error       // the first write error, as the entries saw it
	out   chan []byte // blocks to write, in order
	free  chan []byte // written blocks, to fill again
	done  chan error  // the writer's first error (nil), when out is closed
	fail  atomic.Bool // the writer failed: stop the listing
	// lastModified's formatting, kept for the entries of a same second.
	sec  int64
	when string
}

// lsPieces splits the document d (Entries empty) around its "entries": [
// and ]: head ends with the array's "[", tail starts with its "]".
func lsPieces(d LsJSON) (head, tail []byte, err error) {
	b, err := kit.EncodeJSON(d)
	if err != nil {
		return nil, nil, err
	}
	const mark = `"entries": [`
	i := bytes.Index(b, []byte(mark))
	if i < 0 {
		return nil, nil, &kit.ExitError{Code: kit.ExitFailure, Msg: "encoding JSON: no entries array"}
	}
	i += len(mark)
	return b[:i], b[i:], nil
}

// begin writes the head once.
func (w *lsJSONWriter) begin() {
	if w.begun {
		return
	}
	w.begun = true
	head, _, err := lsPieces(w.doc)
	if err != nil {
		w.err = err
		return
	}
	w.buf = append(w.buf, head...)
}

// entry appends e to the document, writing a block when lsFlushBytes are
// buffered; the first write error stops the listing.
func (w *lsJSONWriter) entry(e jupyter.Model) error {
	w.begin()
	if w.n > 0 {
		w.buf = append(w.buf, ',')
	}
	w.n++
	b := append(w.buf, "\n    {\"name\": "...)
	b = appendJSONString(b, e.Name)
	b = append(b, ", \"path\": "...)
	b = appendJSONPath(b, jupyter.CleanRemote(e.Path))
	b = append(b, ", \"type\": "...)
	b = appendJSONString(b, e.Type)
	b = append(b, ", \"size\": "...)
	b = strconv.AppendInt(b, e.Size, 10)
	b = append(b, ", \"lastModified\": "...)
	b = appendJSONString(b, w.lastModified(e.LastModified))
	w.buf = append(b, '}')
	if len(w.buf) >= lsFlushBytes {
		return w.flush()
	}
	return w.err
}

// lastModified is t as lsEntry writes it: RFC 3339 UTC, "" when unknown.
func (w *lsJSONWriter) lastModified(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	if s := t.Unix(); s != w.sec || w.when == "" {
		w.sec, w.when = s, t.UTC().Format(time.RFC3339)
	}
	return w.when
}

// lsBlocks is how many blocks may wait for the writer: a few times
// lsFlushBytes of memory at most.
const lsBlocks = 4

// errStdout stops a listing whose output failed (the writer's error is
// returned instead).
var errStdout = errors.New("writing JSON failed")

// startWriter starts the goroutine that writes the blocks.
func (w *lsJSONWriter) startWriter() {
	w.out, w.free, w.done = make(chan []byte, lsBlocks), make(chan []byte, lsBlocks+1), make(chan error, 1)
	go func() {
		var first error
		for b := range w.out {
			if first == nil {
				if first = w.v.WriteJSONPiece(b); first != nil {
					w.fail.Store(true)
				}
			}
			select {
			case w.free <- b[:0]:
			default:
			}
		}
		w.done <- first
	}()
}

// flush hands the buffered block to the writer.
func (w *lsJSONWriter) flush() error {
	if w.err == nil && w.fail.Load() {
		w.err = errStdout
	}
	if w.err == nil && len(w.buf) > 0 {
		w.out <- w.buf
		select {
		case w.buf = <-w.free:
		default:
			w.buf = make([]byte, 0, lsFlushBytes+4096)
		}
	}
	w.buf = w.buf[:0]
	return w.err
}

// wait ends the writer once everything is handed to it and returns its
// first error.
func (w *lsJSONWriter) wait() error {
	close(w.out)
	return <-w.done
}

// end closes the document with env ("ok", and "error" on failure).
func (w *lsJSONWriter) end(env kit.Envelope) error {
	w.begin()
	d := w.doc
	d.Envelope = env
	_, tail, err := lsPieces(d)
	if err != nil {
		return err
	}
	if w.n > 0 {
		w.buf = append(w.buf, "\n  "...)
	}
	w.buf = append(w.buf, tail...)
	return w.flush()
}

// appendJSONString appends s as a JSON string the way encoding/json
// writes it (HTML characters and U+2028/U+2029 escaped, invalid UTF-8 as
// U+FFFD): printable ASCII without a quote, backslash or HTML character
// at once, anything else through encoding/json.
func appendJSONString(b []byte, s string) []byte {
	if !jsonPlain(s) {
		q, _ := json.Marshal(s)
		return append(b, q...)
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendJSONPath appends "/"+p (p clean, as jupyter.CleanRemote writes
// it) as appendJSONString does, without making that string first.
func appendJSONPath(b []byte, p string) []byte {
	if !jsonPlain(p) {
		return appendJSONString(b, "/"+p)
	}
	b = append(b, `"/`...)
	b = append(b, p...)
	return append(b, '"')
}

// jsonPlain reports whether encoding/json writes s as it is, between
// quotes: printable ASCII without a quote, backslash or HTML character.
func jsonPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// lsJSONFile writes ls --json's document of one file, m, in the form of
// a directory's (one entry on its line, "ok" last).
func (v *verb) lsJSONFile(doc LsJSON, m jupyter.Model) error {
	v.Mu.Lock()
	defer v.Mu.Unlock()
	doc.Type, doc.Entries = m.Type, []lsEntry{}
	w := &lsJSONWriter{v: v, doc: doc, buf: make([]byte, 0, 4096)}
	w.startWriter()
	err := w.entry(m)
	if err == nil {
		err = w.end(kit.Envelope{OK: true})
	}
	if werr := w.wait(); werr != nil {
		return werr
	}
	return err
}

// lsJSONStream lists directory p and writes ls --json's document as the
// entries arrive (lsJSONWriter). A failure before the first entry writes
// nothing: the caller's failure document stands (jsonOnFailure). A
// failure after entries were written ends the document the stream began:
// "ok": false and "error" after the entries that arrived, type
// "directory"; the error is returned for the exit code and stderr's line.
func (v *verb) lsJSONStream(ctx context.Context, jc *jupyter.Client, p string, doc LsJSON) error {
	v.Mu.Lock()
	defer v.Mu.Unlock()
	doc.Type, doc.Entries = "directory", []lsEntry{}
	w := &lsJSONWriter{v: v, doc: doc, buf: make([]byte, 0, lsFlushBytes+4096)}
	w.startWriter()
	m, _, err := jc.ListEach(ctx, p, w.entry)
	switch {
	case errors.Is(err, errStdout):
		return w.wait() // stdout failed: nothing more can be written
	case err == nil:
		if m.Type != "" {
			w.doc.Type = m.Type
		}
		err = w.end(kit.Envelope{OK: true})
	case w.begun:
		// Entries are out: the document ends with the failure.
		if jerr := w.end(kit.Failure(FileError(err, nil), v.Red())); jerr != nil {
			err = jerr
		}
	}
	if werr := w.wait(); werr != nil {
		return werr
	}
	return err
}
