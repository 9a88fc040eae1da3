package jobs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// A log is read through Jupyter's /files/ route, which jupyter-server
// serves with Tornado's static file handler: it honours a Range header
// (206 with "Content-Range: bytes START-END/TOTAL", or 416 with
// "bytes */TOTAL" when the range starts at or past the end), so each read
// moves only the new bytes however large the log is. Colab's runtime
// proxy has been seen to answer a ranged GET with 200 yet keep the
// Content-Range, and other proxies drop Range altogether; both are read
// correctly below (by the Content-Range's start, or by skipping to the
// offset in a whole-file reply, which then costs the whole file).

// MaxStderrRead bounds one ReadStderrRanges request, in bytes.
const MaxStderrRead = 64 << 10

// ReadLog reads at most max bytes of job id's log from byte off (one
// GET of /files/ with "Range: bytes=off-(off+max-1)", bounded by the
// client's CallTimeout). It returns the bytes (empty when nothing is
// new: a 416 is no error) and the log's size when the server said it in
// Content-Range or Content-Length (-1 otherwise, and always after a
// 416). The bytes returned are exactly those at [off, off+len): a reply
// that starts past off is an error, one that starts before it is
// skipped up to off. On error nothing was read: read again from off.
// Errors: ErrBadID; jupyter.ErrNotFound (no log yet, or no such job); a
// *jupyter.Error of kind ErrServer for a reply that does not say where
// it starts; the client's others.
func ReadLog(ctx context.Context, jc *jupyter.Client, id string, off, max int64) ([]byte, int64, error) {
	if err := ValidID(id); err != nil {
		return nil, -1, err
	}
	if off < 0 || max <= 0 {
		return nil, -1, fmt.Errorf("jobs: ReadLog from %d for %d bytes", off, max)
	}
	return readRange(ctx, jc, Dir(id)+"/"+LogFile, fmt.Sprintf("bytes=%d-%d", off, off+max-1), off, max)
}

// TailLog reads the last n bytes of job id's log (one GET with a suffix
// Range, "bytes=-n") and the offset they start at; a log shorter than n
// is read whole from 0, an empty one gives no bytes at offset 0. Errors
// are ReadLog's.
func TailLog(ctx context.Context, jc *jupyter.Client, id string, n int64) ([]byte, int64, error) {
	if err := ValidID(id); err != nil {
		return nil, 0, err
	}
	if n <= 0 {
		return nil, 0, fmt.Errorf("jobs: TailLog of %d bytes", n)
	}
	b, start, err := readSuffix(ctx, jc, Dir(id)+"/"+LogFile, n)
	return b, start, err
}

// Range is a piece of the log [Off, Off+Len) that came from stderr.
type Range struct{ Off, Len int64 }

// ReadStderrRanges reads stderr.ranges from byte off (as ReadLog, at most
// MaxStderrRead bytes per call) and returns the whole ranges it holds and
// the offset after the last whole line: call again from there for more.
// A missing file is no range yet. Lines that are not two numbers are
// skipped. Errors are ReadLog's.
func ReadStderrRanges(ctx context.Context, jc *jupyter.Client, id string, off int64) ([]Range, int64, error) {
	if err := ValidID(id); err != nil {
		return nil, off, err
	}
	p := Dir(id) + "/" + StderrFile
	b, _, err := readRange(ctx, jc, p, fmt.Sprintf("bytes=%d-%d", off, off+MaxStderrRead-1), off, MaxStderrRead)
	switch {
	case isNotFound(err):
		return nil, off, nil
	case err != nil:
		return nil, off, err
	}
	end := bytes.LastIndexByte(b, '\n')
	if end < 0 {
		return nil, off, nil
	}
	var out []Range
	for _, line := range strings.Split(string(b[:end]), "\n") {
		a, l, ok := strings.Cut(line, " ")
		o, err1 := strconv.ParseInt(a, 10, 64)
		n, err2 := strconv.ParseInt(l, 10, 64)
		if ok && err1 == nil && err2 == nil && o >= 0 && n > 0 {
			out = append(out, Range{Off: o, Len: n})
		}
	}
	return out, off + int64(end) + 1, nil
}

// isNotFound reports a Jupyter 404.
func isNotFound(err error) bool { return errors.Is(err, jupyter.ErrNotFound) }

// isRangeRefused reports a 416: the range starts at or past the end.
func isRangeRefused(err error) bool {
	var je *jupyter.Error
	return errors.As(err, &je) && je.Status == http.StatusRequestedRangeNotSatisfiable
}

// get sends one bounded GET of /files/P with a Range header.
func get(ctx context.Context, jc *jupyter.Client, p, rng string) (*http.Response, error) {
	return jc.Do(ctx, &proxy.Request{Op: "read log", Method: http.MethodGet, Path: "files/" + proxy.EscapePath(p),
		Header: http.Header{"Range": {rng}}, Retry404: true, Remote: p})
}

// readRange GETs p with the Range rng (asking for [off, off+max)) and
// returns the bytes from off, at most max, and the file's size (-1
// unknown).
func readRange(ctx context.Context, jc *jupyter.Client, p, rng string, off, max int64) ([]byte, int64, error) {
	ctx, cancel := context.WithTimeout(ctx, jc.Options().CallTimeout)
	defer cancel()
	resp, err := get(ctx, jc, p, rng)
	if err != nil {
		if isRangeRefused(err) {
			return nil, -1, nil
		}
		return nil, -1, timeoutError(ctx, jc, p, err)
	}
	defer resp.Body.Close()
	start, total, err := replyStart(jc, p, resp)
	if err != nil {
		return nil, -1, err
	}
	if start > off {
		return nil, -1, &jupyter.Error{Op: "read log", Runtime: jc.Runtime(), Path: p, Kind: jupyter.ErrServer,
			Message: fmt.Sprintf("the server answered from byte %d, not %d", start, off)}
	}
	if _, err := io.CopyN(io.Discard, resp.Body, off-start); err != nil {
		if err == io.EOF {
			return nil, total, nil // a whole-file reply that ends before off: nothing new
		}
		return nil, -1, bodyError(ctx, jc, p, err)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, max))
	if err != nil {
		return nil, -1, bodyError(ctx, jc, p, err)
	}
	return b, total, nil
}

// readSuffix GETs the last n bytes of p and the offset they start at.
func readSuffix(ctx context.Context, jc *jupyter.Client, p string, n int64) ([]byte, int64, error) {
	ctx, cancel := context.WithTimeout(ctx, jc.Options().CallTimeout)
	defer cancel()
	resp, err := get(ctx, jc, p, fmt.Sprintf("bytes=-%d", n))
	if err != nil {
		if isRangeRefused(err) {
			return nil, 0, nil // an empty log
		}
		return nil, 0, timeoutError(ctx, jc, p, err)
	}
	defer resp.Body.Close()
	start, total, err := replyStart(jc, p, resp)
	if err != nil {
		return nil, 0, err
	}
	// A reply of the whole file (Range ignored) is cut to its last n
	// bytes; that needs its size.
	if total >= 0 && total-n > start {
		skip := total - n
		if _, err := io.CopyN(io.Discard, resp.Body, skip-start); err != nil {
			return nil, 0, bodyError(ctx, jc, p, err)
		}
		start = skip
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, n))
	if err != nil {
		return nil, 0, bodyError(ctx, jc, p, err)
	}
	return b, start, nil
}

// replyStart is where a ranged GET's reply starts and the file's total
// size (-1 unknown): its Content-Range when it has one (206, or a 200
// that kept it), else 0 and Content-Length for a 200. A 206 without a
// readable Content-Range is an error.
func replyStart(jc *jupyter.Client, p string, resp *http.Response) (int64, int64, error) {
	if cr := resp.Header.Get("Content-Range"); cr != "" {
		start, total, ok := parseContentRange(cr)
		if !ok {
			return 0, -1, &jupyter.Error{Op: "read log", Runtime: jc.Runtime(), Path: p, Kind: jupyter.ErrServer,
				Message: "unreadable Content-Range " + strconv.Quote(cr)}
		}
		return start, total, nil
	}
	if resp.StatusCode == http.StatusPartialContent {
		return 0, -1, &jupyter.Error{Op: "read log", Runtime: jc.Runtime(), Path: p, Kind: jupyter.ErrServer,
			Message: "206 without Content-Range"}
	}
	return 0, resp.ContentLength, nil
}

// parseContentRange reads "bytes START-END/TOTAL" (TOTAL "*": -1).
func parseContentRange(s string) (start, total int64, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimSpace(s), "bytes ")
	if !found {
		return 0, 0, false
	}
	rng, tot, found := strings.Cut(rest, "/")
	a, _, found2 := strings.Cut(rng, "-")
	if !found || !found2 {
		return 0, 0, false
	}
	start, err := strconv.ParseInt(strings.TrimSpace(a), 10, 64)
	if err != nil || start < 0 {
		return 0, 0, false
	}
	total = -1
	if t := strings.TrimSpace(tot); t != "*" {
		if total, err = strconv.ParseInt(t, 10, 64); err != nil || total < 0 {
			return 0, 0, false
		}
	}
	return start, total, true
}

// timeoutError is err, or a transport error naming the call's timeout
// when that is what ended it.
func timeoutError(ctx context.Context, jc *jupyter.Client, p string, err error) error {
	if ctx.Err() == context.DeadlineExceeded {
		return &jupyter.Error{Op: "read log", Runtime: jc.Runtime(), Path: p, Kind: jupyter.ErrTransport,
			Message: "no answer within " + jc.Options().CallTimeout.String()}
	}
	return err
}

// bodyError is a failure while a reply's body arrived.
func bodyError(ctx context.Context, jc *jupyter.Client, p string, err error) error {
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return timeoutError(ctx, jc, p, err)
	case ctx.Err() != nil:
		return context.Cause(ctx)
	}
	return &jupyter.Error{Op: "read log", Runtime: jc.Runtime(), Path: p, Kind: jupyter.ErrTransport, Message: proxy.StripURL(err)}
}

// Stop asks job id's supervisor to stop it: SIGTERM to its process group,
// SIGKILL after grace (0: DefaultGrace; rounded up to whole
// milliseconds). It writes the stop file (its text: the grace in
// seconds) and returns; the supervisor acts within a second. Stopping a
// job that has ended does nothing. Errors: ErrBadID; jupyter.ErrNoParent
// (no such job); the client's others.
func Stop(ctx context.Context, jc *jupyter.Client, id string, grace time.Duration) error {
	if err := ValidID(id); err != nil {
		return err
	}
	if grace <= 0 {
		grace = DefaultGrace
	}
	text := strconv.FormatFloat(float64((grace+time.Millisecond-1)/time.Millisecond)/1000, 'f', -1, 64) + "\n"
	_, err := jc.Upload(ctx, Dir(id)+"/"+StopFile, strings.NewReader(text), int64(len(text)), nil)
	return err
}
