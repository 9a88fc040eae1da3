package ops

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/safefile"
)

// LastSpec is the runtimeSpec and version of the last runtime the user
// created (the dashboard's N, create --last), stored as JSON in
// LastSpecFile under the state directory. It holds no secret.
type LastSpec struct {
	Spec    api.RuntimeSpecKey `json:"runtimeSpec"`
	Version string             `json:"version,omitempty"`
}

// LastSpecFile is the file name of the last used spec in the state
// directory.
const LastSpecFile = "last-spec.json"

// StateDir returns $XDG_STATE_HOME/colabdash, or ~/.local/state/colabdash
// when XDG_STATE_HOME is unset or not absolute (XDG Base Directory spec);
// "" when neither can be found.
func StateDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "colabdash")
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".local", "state", "colabdash")
}

// LoadLastSpec reads dir/last-spec.json the bounded way (safefile: a
// regular file of at most safefile.MaxStateFile bytes, read in bounded
// time). It returns an error when dir is empty or not the user's own
// (safefile.PrivateDir: another user could have written it), the file is missing, is
// not a regular file (a FIFO, a device, also behind a symlink) or too
// large, or it is not a valid spec (no variant).
func LoadLastSpec(dir string) (*LastSpec, error) {
	if dir == "" {
		return nil, errors.New("no state directory")
	}
	if err := safefile.PrivateDir("state directory", dir); err != nil {
		return nil, err
	}
	b, err := safefile.Read(filepath.Join(dir, LastSpecFile), safefile.MaxStateFile, 0)
	if err != nil {
		return nil, err
	}
	var ls LastSpec
	if err := json.Unmarshal(b, &ls); err != nil {
		return nil, err
	}
	if ls.Spec.Variant == "" {
		return nil, errors.New(LastSpecFile + ": no variant")
	}
	return &ls, nil
}

// SaveLastSpec writes ls to dir/last-spec.json (WriteStateFile). An empty
// dir stores nothing.
func SaveLastSpec(dir string, ls *LastSpec) error {
	if dir == "" {
		return nil
	}
	b, err := json.MarshalIndent(ls, "", "  ")
	if err != nil {
		return err
	}
	return WriteStateFile(dir, LastSpecFile, append(b, '\n'))
}

// WriteStateFile writes b to dir/name in the state directory (the
// directory made 0700 when missing, the file 0600) through
// safefile.WriteAtomic, so a reader never sees half of it; a dir another
// user owns or may write to is refused (safefile.PrivateDir). It holds no
// secret by contract: never pass one.
func WriteStateFile(dir, name string, b []byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := safefile.PrivateDir("state directory", dir); err != nil {
		return err
	}
	return safefile.WriteAtomic(filepath.Join(dir, name), b, 0o600)
}
