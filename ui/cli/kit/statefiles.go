package kit

import (
	"os"
	"path/filepath"
	"time"

	"github.com/colabdash/colabdash/ui/ops"
)

// The commands' state directory and the last-used spec are ui/ops' (the
// dashboard keeps them the same way); these are the names the verbs use.

// LastSpec is the runtimeSpec and version of the last runtime the user
// created (create --last), kept in the state directory; no secret.
type LastSpec = ops.LastSpec

// StateDir returns $XDG_STATE_HOME/colabdash, or ~/.local/state/colabdash
// when XDG_STATE_HOME is unset or not absolute; "" when neither can be
// found (ops.StateDir).
func StateDir() string { return ops.StateDir() }

// CacheDir returns colabdash's directory below the platform's cache
// directory (os.UserCacheDir: $XDG_CACHE_HOME or ~/.cache on Linux,
// ~/Library/Caches on macOS, %LocalAppData% on Windows), where what can be
// thrown away is kept (the completion cache); "" when there is none.
func CacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil || dir == "" {
		return ""
	}
	return filepath.Join(dir, "colabdash")
}

// WriteStateFile writes b to dir/name in the state directory (directory
// 0700, file 0600) through a temporary file and a rename
// (ops.WriteStateFile). It holds no secret by contract: never pass one.
func WriteStateFile(dir, name string, b []byte) error { return ops.WriteStateFile(dir, name, b) }

// LoadLastSpec reads dir/last-spec.json the bounded way; an error when
// dir is empty or the file is missing, not a regular file, too large or
// not a valid spec (ops.LoadLastSpec).
func LoadLastSpec(dir string) (*LastSpec, error) { return ops.LoadLastSpec(dir) }

// SaveLastSpec writes ls to dir/last-spec.json (directory 0700, file
// 0600, through a rename). An empty dir stores nothing.
func SaveLastSpec(dir string, ls *LastSpec) error { return ops.SaveLastSpec(dir, ls) }

// OpenedByColabdash reports whether colabdash opened session: its id
// starts with colabdash-, or the state directory records it (the
// dashboard's o with an id typed: ops.RecordOpenedSession). With --demo
// no record is read.
func (v *Verb) OpenedByColabdash(session string) bool {
	return ops.OpenedByColabdash(v.openedDir(), session)
}

// RecordOpenedSession records in the state directory that colabdash
// opened session under an id of the user's choosing
// (ops.RecordOpenedSession); nothing with --demo or no state directory.
func (v *Verb) RecordOpenedSession(session string) error {
	if dir := v.openedDir(); dir != "" {
		return ops.RecordOpenedSession(dir, session, time.Now())
	}
	return nil
}

// ForgetOpenedSession removes the state directory's record of session
// once it is closed (ops.ForgetOpenedSession).
func (v *Verb) ForgetOpenedSession(session string) {
	if dir := v.openedDir(); dir != "" {
		ops.ForgetOpenedSession(dir, session)
	}
}

func (v *Verb) openedDir() string {
	if v.G.Demo {
		return ""
	}
	return StateDir()
}
