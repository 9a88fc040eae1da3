package ops

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// WhenDoneClaimsDir is the directory, below the state directory, of the
// markers by which colabdash processes claim the delete a job note asks
// for (run --detach --delete-when-done): the dashboards, jobs --watch and
// wait that see the job end race for it, and only the first deletes the
// runtime. Markers older than WhenDoneClaimsKept are removed by the next
// claim.
const (
	WhenDoneClaimsDir  = "when-done"
	WhenDoneClaimsKept = 7 * 24 * time.Hour
)

// ClaimWhenDone reports whether this process is the first to carry out
// the delete of runtime (runtimes/ID) that job id's note asks for: it
// creates the job's marker in state directory dir's WhenDoneClaimsDir
// exclusively (false: another process created it first, and deletes the
// runtime). With no state directory, or one the marker cannot be written
// in (WhenDoneClaimsDir a symbolic link included: never followed), it
// reports true: a second delete_runtime is better than none. now
// dates the markers pruned.
func ClaimWhenDone(dir, runtime, id string, now time.Time) bool {
	if dir == "" {
		return true
	}
	claims := filepath.Join(dir, WhenDoneClaimsDir)
	if err := os.MkdirAll(claims, 0o700); err != nil {
		return true
	}
	if fi, err := os.Lstat(claims); err != nil || !fi.IsDir() {
		return true // a link in the directory's place is not followed
	}
	pruneClaims(claims, now.Add(-WhenDoneClaimsKept))
	sum := sha256.Sum256([]byte(runtime + "\x00" + id))
	f, err := os.OpenFile(filepath.Join(claims, hex.EncodeToString(sum[:16])), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return false
	}
	if err == nil {
		_ = f.Close()
	}
	return true
}

// pruneClaims removes the regular files of claims last changed before
// cut.
func pruneClaims(claims string, cut time.Time) {
	es, err := os.ReadDir(claims)
	if err != nil {
		return
	}
	for _, e := range es {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && info.ModTime().Before(cut) {
			_ = os.Remove(filepath.Join(claims, e.Name()))
		}
	}
}
