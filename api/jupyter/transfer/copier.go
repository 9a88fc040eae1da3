// Package transfer copies files between this machine and a runtime's
// Jupyter server, through a proxy.Client: Upload (one request, or a part
// file in base64 chunks renamed into place once verified), Download
// (/files/ with Range resume into a stamped part file, an idle
// watchdog, and every local file opened below the directory the user
// named without following links), and UploadPath and DownloadPath, the
// recursive copies of cp -r with their name checks and listing checks,
// which plan the copy first and then move several files at once
// (concurrent.go).
package transfer

import (
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// PartSuffix is added to a file's name while it is being transferred: an
// upload goes to "NAME.colabdash-part" on the runtime and is renamed when
// complete and verified; a download goes to "NAME.colabdash-part" beside
// the local target.
const PartSuffix = ".colabdash-part"

// Progress is called as a transfer moves: done bytes of total (total is
// -1 when unknown). It is called often; throttle any rendering.
type Progress func(done, total int64)

// Copier is a proxy.Client that also copies files to and from its
// runtime. It is safe for concurrent use; the upload piece size a
// proxy's 413 taught (MinChunkSize and up) is kept for its later
// uploads.
type Copier struct {
	*proxy.Client
	o  proxy.Options // the client's options in effect
	id string        // runtime id, for messages

	// wrapPart, when set (tests), wraps the download's part file so a
	// test can make its writes fail (a full disk).
	wrapPart func(partFile) partFile
	// learned is the upload piece size a proxy's 413 taught (0: none).
	learned atomic.Int64
}

// New returns a Copier that transfers through c, with c's options
// (ChunkSize, IdleTimeout, MaxRetries, RetryDelay, MaxUnknownSize,
// Logger, Redactor).
func New(c *proxy.Client) *Copier {
	return &Copier{Client: c, o: c.Options(), id: c.Runtime()}
}

// maxEntries bounds how many entries a recursive walk visits (a
// variable so that tests can lower it).
var maxEntries = 1_000_000

// within reports whether target, after cleaning, stays inside dest.
func within(dest, target string) bool {
	rel, err := filepath.Rel(filepath.Clean(dest), filepath.Clean(target))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
