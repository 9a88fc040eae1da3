package files

// ls of a directory prints its listing as it arrives: the reply is decoded entry by entry (jupyter.ListEach) and each
// line written at once, so a directory of 120,000 entries costs the
// memory of one entry and starts printing before its reply has ended.

import (
	"bufio"
	"context"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/termtext"
)

// lsSizeWidth is the size column's width: every state.FormatBytes value
// up to 999.9 PB ("999.9 MB" is 8 cells), so the lines of a listing
// printed as it arrives line up without knowing the entries to come.
const lsSizeWidth = 8

// lsFlushBytes is how much of a listing is written at a time.
const lsFlushBytes = 32 << 10

// listingLine is one ls line: size, time modified and name (directories
// end in "/"), the name (the only text from the server) redacted with
// red and passed through termtext.
func listingLine(red *api.Redactor, e jupyter.Model) string {
	var l lineWriter
	return string(l.append(nil, red, e))
}

// lineWriter builds ls lines; it remembers the last minute it formatted
// (the entries of a directory often share it), which a listing of
// 100,000 entries would otherwise format 100,000 times.
type lineWriter struct {
	minute int64
	when   string
}

// append appends e's ls line (without its newline) to b.
func (l *lineWriter) append(b []byte, red *api.Redactor, e jupyter.Model) []byte {
	size, when := "-", "-"
	if !e.IsDir() && e.Size >= 0 {
		size = state.FormatBytes(e.Size)
	}
	if !e.LastModified.IsZero() {
		if m := e.LastModified.Unix() / 60; m != l.minute || l.when == "" {
			l.minute, l.when = m, e.LastModified.Local().Format("2006-01-02 15:04")
		}
		when = l.when
	}
	for i := len(size); i < lsSizeWidth; i++ {
		b = append(b, ' ')
	}
	b = append(b, size...)
	b = append(b, "  "...)
	b = append(b, when...)
	for i := len(when); i < 16; i++ {
		b = append(b, ' ')
	}
	b = append(b, "  "...)
	b = append(b, termtext.Line(red.Redact(jupyter.DisplayName(e.Name)))...)
	if e.IsDir() {
		b = append(b, '/')
	}
	return b
}

// lsStream lists directory p and prints each entry's line as it is
// decoded (listingLine: its name redacted and through termtext), in blocks of
// lsFlushBytes (and at least every half second while the reply is
// slow). It returns the listing's error; the lines printed before it
// stay printed.
func (v *verb) lsStream(ctx context.Context, jc *jupyter.Client, p string) error {
	red := v.Red()
	v.Mu.Lock()
	defer v.Mu.Unlock()
	w := bufio.NewWriterSize(v.S.Out, lsFlushBytes+4096)
	defer w.Flush()
	last := time.Now()
	var l lineWriter
	var line []byte
	_, _, err := jc.ListEach(ctx, p, func(e jupyter.Model) error {
		line = append(l.append(line[:0], red, e), '\n')
		w.Write(line)
		if w.Buffered() >= lsFlushBytes {
			last = time.Now()
			return w.Flush()
		}
		if now := time.Now(); now.Sub(last) >= 500*time.Millisecond {
			last = now
			return w.Flush()
		}
		return nil
	})
	return err
}
