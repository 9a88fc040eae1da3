package notify

// Keeps: the user's choice to keep a runtime from the idle guard (its
// cancel key), shared by every process of the same state directory and
// remembered after the dashboard quits. A keep is a marker file beside
// the claims (ClaimsDir), named by a hash of its key (the account, the
// runtime and its stretch of idleness: a keep lasts until the runtime has
// worked and gone idle again), created exclusively and read without
// following links; it is pruned with the claims after ClaimsKept.

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// keepPath is the marker of keep key in the claims directory ("" with no
// state directory).
func (n *Notifier) keepPath(key string) string {
	if n.o.StateDir == "" {
		return ""
	}
	sum := sha256.Sum256([]byte("kept\x00" + key))
	return filepath.Join(n.o.StateDir, ClaimsDir, "kept-"+hex.EncodeToString(sum[:16]))
}

// Keep records keep key (the idle guard's cancel key for one runtime's
// stretch of idleness) for this process and every other one sharing the
// state directory. A keep recorded already is no error. It fails when the
// marker cannot be made (the directory is a link, a disk error): the keep
// then holds in this process only.
func (n *Notifier) Keep(key string) error {
	n.mu.Lock()
	n.kept[key] = true
	n.mu.Unlock()
	p := n.keepPath(key)
	if p == "" {
		return nil
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return errors.New("the state directory's " + ClaimsDir + " is not a directory")
	}
	// O_EXCL with O_CREATE never follows a link at the marker's name.
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, fs.ErrExist) {
		if fi, lerr := os.Lstat(p); lerr == nil && fi.Mode().IsRegular() {
			return nil
		}
		return errors.New("the keep's marker is not a plain file")
	}
	if err != nil {
		return err
	}
	return f.Close()
}

// Kept reports whether keep key was recorded, by this process or another
// sharing the state directory (only a plain file counts: a link does
// not).
func (n *Notifier) Kept(key string) bool {
	n.mu.Lock()
	kept := n.kept[key]
	n.mu.Unlock()
	if kept {
		return true
	}
	p := n.keepPath(key)
	if p == "" {
		return false
	}
	if fi, err := os.Lstat(filepath.Dir(p)); err != nil || !fi.IsDir() {
		return false
	}
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode().IsRegular()
}
