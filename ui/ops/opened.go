package ops

import (
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/safefile/marker"
	"github.com/colabdash/colabdash/state"
)

// OpenedSessionsDir is the directory, below the state directory, of the
// markers that record the sessions colabdash opened under an id of the
// user's choosing (the dashboard's o with an id typed): a session whose
// id starts with state.OwnSessionPrefix needs none. A marker is keyed by
// the session's full name (runtimes/ID/sessions/SID: runtime ids are
// never reused, so a marker cannot outlive its runtime into another). It
// is removed when colabdash closes the session, and every marker older
// than OpenedSessionsKept (longer than any runtime lives) by the next
// record.
const (
	OpenedSessionsDir  = "opened-sessions"
	OpenedSessionsKept = 7 * 24 * time.Hour
)

func openedDir(dir string) marker.Dir { return marker.Dir{State: dir, Name: OpenedSessionsDir} }

// RecordOpenedSession records in state directory dir that colabdash
// opened session (runtimes/ID/sessions/SID) itself, when its id does not
// already say so; now dates the markers pruned. Errors: those of
// marker.Create (no state directory, a link where the directory or the
// marker would be).
func RecordOpenedSession(dir, session string, now time.Time) error {
	if state.IsOwnSession(session) {
		return nil
	}
	d := openedDir(dir)
	d.Prune(now.Add(-OpenedSessionsKept))
	_, err := d.Create(session)
	return err
}

// ForgetOpenedSession removes session's record (a session colabdash
// closed): only a regular file at the marker's name, in a marker
// directory that is a directory (a link is left as it is, as package
// marker never follows one); nothing when there is none.
func ForgetOpenedSession(dir, session string) {
	_ = openedDir(dir).Remove(session)
}

// OpenedByColabdash reports whether colabdash opened session: its id
// starts with state.OwnSessionPrefix, or state directory dir records it
// (RecordOpenedSession). "" for dir reads no record.
func OpenedByColabdash(dir, session string) bool {
	return state.IsOwnSession(session) || (dir != "" && openedDir(dir).Exists(session))
}

// OpenedAmong returns those of sessions whose ids do not say colabdash
// opened them that dir records as opened by it (one Lstat each).
func OpenedAmong(dir string, sessions []api.Session) []string {
	if dir == "" {
		return nil
	}
	var out []string
	for _, s := range sessions {
		if !state.IsOwnSession(s.Name) && openedDir(dir).Exists(s.Name) {
			out = append(out, s.Name)
		}
	}
	return out
}
