package transfer

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// MinChunkSize is the smallest piece an upload is split into after a
// proxy refuses a request as too large (413): 1 MiB, which nginx's
// default client_max_body_size lets through once base64 and JSON are
// added only barely; below it the upload fails.
const MinChunkSize = 1 << 20

// chunkSize is the raw bytes per upload request now: Options.ChunkSize,
// or the smaller size a 413 taught this client.
func (c *Copier) chunkSize() int64 {
	if n := c.learned.Load(); n > 0 && n < c.o.ChunkSize {
		return n
	}
	return c.o.ChunkSize
}

// tooLarge reports whether err is a request refused with HTTP 413.
func tooLarge(err error) bool {
	var je *proxy.Error
	return errors.As(err, &je) && je.Status == http.StatusRequestEntityTooLarge
}

// shrinkChunks records that a request carrying refused raw bytes was
// refused with 413 (err) and returns the piece size to try next: half of
// refused (a multiple of 3, so each piece's base64 has no padding), at
// least MinChunkSize. Later uploads through this client start at that
// size.
func (c *Copier) shrinkChunks(err error, refused int64) int64 {
	next := max(refused/2, MinChunkSize)
	next -= next % 3
	if cur := c.chunkSize(); next < cur {
		c.learned.Store(next)
	}
	c.o.Logger.Warn("a proxy refused an upload request as too large (413); sending smaller pieces",
		"runtime", c.id, "refusedBytes", refused, "nextBytes", next, "error", c.o.Redactor.Redact(err.Error()))
	return next
}

// explainTooLarge rewrites a 413 into words naming the request's size
// in bytes.
func explainTooLarge(err error, body int64) error {
	var je *proxy.Error
	if !errors.As(err, &je) {
		return err
	}
	e := *je
	e.Message = fmt.Sprintf("a proxy between this machine and the runtime refused a %s request as too large (HTTP 413)", megabytes(body))
	return &e
}

// atFloor adds to a 413 that it came even for a piece of MinChunkSize.
func atFloor(err error) error {
	var je *proxy.Error
	if !errors.As(err, &je) {
		return err
	}
	e := *je
	e.Message += fmt.Sprintf(", even in pieces of %s (%d bytes) of the file", megabytes(MinChunkSize), MinChunkSize)
	return &e
}

// megabytes writes n bytes as "26.7 MB" (decimal, as Colab's 50 MB limit
// is written).
func megabytes(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
