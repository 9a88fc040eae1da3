package proxy

// The directory listing, decoded as a stream: a Jupyter
// contents reply for a directory of 120,000 entries is 35 MB of JSON, and
// colabdash must list, browse and copy it. The reply is never held whole:
// a scanner of its own checks it (listscan.go) and each entry of "content" is decoded on
// its own and handed to the caller, which prints it (ls), keeps the first
// ones (the files pane) or collects them (cp -r). It is bounded by entries
// (Options.MaxEntries) and by time (Options.ListTimeout), not by bytes,
// and each entry may take at most maxEntryBytes of the reply.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Defaults of the listing's bounds, applied for zero Options fields.
const (
	// DefaultMaxEntries bounds one directory listing: 1,000,000 entries.
	DefaultMaxEntries = 1_000_000
	// DefaultListTimeout bounds one directory listing, from the request
	// to its last entry: 5 min (a 120,000-entry reply took 11.7 s on a
	// runtime).
	DefaultListTimeout = 5 * time.Minute
)

// Bytes of the reply a listing may read: listingHeadBytes for everything
// but the entries, plus maxEntryBytes per entry decoded so far and one
// more. A reply that is not a listing (an endless string, an entry of a
// gigabyte) stops there instead of filling memory.
const (
	listingHeadBytes = 1 << 20
	maxEntryBytes    = 64 << 10
)

// ErrListTooLarge: a directory listing passed Options.MaxEntries entries
// or did not finish within Options.ListTimeout. Its message says how many
// entries arrived and that exec (os.scandir) can list the directory.
var ErrListTooLarge = errors.New("directory too large to list through the runtime's Jupyter server")

func init() { classes[ErrListTooLarge] = "too large" }

// ListEach lists a remote directory (GET /api/contents/{path}?content=1)
// and calls each with every entry as it is decoded, in the server's
// order, without keeping them: a listing of any size costs the memory of
// one entry. each returning an error stops the listing with that error.
// It returns the directory's own model (Entries nil) and the number of
// entries passed to each. A directory needs no Stat first. Errors: those
// of Stat; ErrNotDir for a file or notebook (each is not called);
// ErrListTooLarge past Options.MaxEntries entries or Options.ListTimeout;
// ErrServer for a reply that is not a listing. Entries already passed to
// each stay valid when it fails.
func (c *Client) ListEach(ctx context.Context, p string, each func(Model) error) (Model, int, error) {
	remote := CleanRemote(p)
	ctx, cancel := context.WithTimeout(ctx, c.o.ListTimeout)
	defer cancel()
	fail := func(kind error, msg string) *Error {
		return &Error{Op: "list", Runtime: c.id, Path: remote, Kind: kind, Message: msg}
	}
	// type=directory: a file or notebook is refused (400) before the
	// server reads it, so a listing needs no Stat first; a server that
	// ignores it sends the file, whose content is ErrNotDir below.
	resp, err := c.Do(ctx, &Request{Op: "list", Method: http.MethodGet, Path: "api/contents/" + EscapePath(p),
		Query: url.Values{"content": {"1"}, "type": {"directory"}}, Retry404: true, Remote: remote})
	if err != nil {
		var je *Error
		if errors.As(err, &je) && je.Status == http.StatusBadRequest && strings.Contains(je.Message, "is not a directory") {
			return Model{}, 0, &Error{Op: "list", Runtime: c.id, Path: remote, Kind: ErrNotDir}
		}
		if ctx.Err() == context.DeadlineExceeded {
			return Model{}, 0, fail(ErrTransport, fmt.Sprintf("no answer within %s", c.o.ListTimeout))
		}
		return Model{}, 0, err
	}
	defer resp.Body.Close()
	ld := &listDecoder{c: c, each: each, budget: &budgetReader{r: resp.Body, left: listingHeadBytes + maxEntryBytes}}
	m, err := ld.decode()
	switch {
	case err == nil:
		return m, ld.n, nil
	case ctx.Err() == context.DeadlineExceeded:
		return m, ld.n, fail(ErrListTooLarge, fmt.Sprintf("%d entries arrived in %s and the listing had not ended; list it with exec (os.scandir)",
			ld.n, c.o.ListTimeout))
	case ctx.Err() != nil:
		return m, ld.n, context.Cause(ctx)
	}
	if ld.stopped {
		return m, ld.n, err // each's own error
	}
	var je *Error
	if errors.As(err, &je) {
		if je.Path == "" {
			je.Path = remote
		}
		return m, ld.n, err
	}
	var se *json.SyntaxError
	var ue *json.UnmarshalTypeError
	if errors.Is(err, errSyntax) || errors.As(err, &se) || errors.As(err, &ue) {
		return m, ld.n, fail(ErrServer, "the listing is not the expected JSON")
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return m, ld.n, fail(ErrTransport, fmt.Sprintf("the listing ended early, after %d entries", ld.n))
	}
	return m, ld.n, fail(ErrTransport, StripURL(err))
}

// listDecoder walks one contents reply.
type listDecoder struct {
	c       *Client
	each    func(Model) error
	budget  *budgetReader
	n       int  // entries passed to each
	stopped bool // each returned an error
}

// errEntryTooLarge is the budget reader's error.
var errEntryTooLarge = errors.New("listing entry too large")

func (ld *listDecoder) decode() (Model, error) {
	md := &modelDecoder{s: &scanner{r: ld.budget, buf: make([]byte, 0, scanReadSize)}}
	if err := md.s.skipXSSI(); err != nil {
		return Model{}, ld.wrap(err)
	}
	if c, err := md.s.peek(); err == nil && c != '{' && startsValue(c) {
		return Model{}, ld.notListing("the reply is not a JSON object")
	}
	var m Model
	if err := md.model(&m, func() error { return ld.content(md) }); err != nil {
		return m, ld.wrap(err)
	}
	if !m.IsDir() {
		return m, &Error{Op: "list", Runtime: ld.c.id, Kind: ErrNotDir}
	}
	return m, nil
}

// startsValue reports whether c may start a JSON value.
func startsValue(c byte) bool {
	return c == '{' || c == '[' || c == '"' || c == 't' || c == 'f' || c == 'n' || c == '-' || c >= '0' && c <= '9'
}

// content decodes the model's "content": a directory's array of
// entries, each passed to ld.each as it is decoded. A string or object
// (a file's or notebook's content) is ErrNotDir, before any more of it
// is read.
func (ld *listDecoder) content(md *modelDecoder) error {
	c, err := md.s.peek()
	switch {
	case err != nil:
		return err
	case c == 'n':
		_, err := md.s.value(nil)
		return err
	case c == '[':
		md.s.pos++
	case startsValue(c):
		return &Error{Op: "list", Runtime: ld.c.id, Kind: ErrNotDir}
	default:
		return errSyntax
	}
	if c, err = md.s.peek(); err != nil || c == ']' {
		md.s.pos++
		return err
	}
	var e Model
	for more := true; more; {
		if ld.n >= ld.c.o.MaxEntries {
			return &Error{Op: "list", Runtime: ld.c.id, Kind: ErrListTooLarge,
				Message: fmt.Sprintf("more than %d entries; list it with exec (os.scandir)", ld.c.o.MaxEntries)}
		}
		if err := md.entry(&e); err != nil {
			return err
		}
		ld.budget.left += maxEntryBytes
		ld.n++
		if err := ld.each(e); err != nil {
			ld.stopped = true
			return err
		}
		if more, err = md.next(']'); err != nil {
			return err
		}
	}
	return nil
}

// wrap gives the budget's error its kind (ErrServer); any other error
// is returned as is (ListEach names the path).
func (ld *listDecoder) wrap(err error) error {
	if ld.budget.err != nil {
		// The reader failed: jsontext may have reported it as the
		// value it cut short.
		err = ld.budget.err
	}
	if errors.Is(err, errEntryTooLarge) {
		return ld.notListing(fmt.Sprintf("an entry of the listing is larger than %d KiB", maxEntryBytes>>10))
	}
	return err
}

func (ld *listDecoder) notListing(msg string) error {
	return &Error{Op: "list", Runtime: ld.c.id, Kind: ErrServer, Message: msg}
}

// budgetReader reads from r until left bytes were read, then fails with
// errEntryTooLarge; the decoder raises left as entries arrive. err is
// the first error other than io.EOF it returned.
type budgetReader struct {
	r    io.Reader
	left int64
	err  error
}

func (b *budgetReader) Read(p []byte) (int, error) {
	if b.left <= 0 {
		b.err = errEntryTooLarge
		return 0, b.err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	if err != nil && err != io.EOF && b.err == nil {
		b.err = err
	}
	return n, err
}
