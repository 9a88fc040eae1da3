package ops

import (
	"time"

	"github.com/colabdash/colabdash/api/safefile/marker"
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
// in (WhenDoneClaimsDir a symbolic link, or a link at the marker's name:
// never followed, see package marker), it reports true: a second
// delete_runtime is better than none. now dates the markers pruned.
func ClaimWhenDone(dir, runtime, id string, now time.Time) bool {
	claims := marker.Dir{State: dir, Name: WhenDoneClaimsDir}
	claims.Prune(now.Add(-WhenDoneClaimsKept))
	created, err := claims.Create(runtime + "\x00" + id)
	return created || err != nil
}
