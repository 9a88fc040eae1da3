package notify

// Keeps: the user's choice to keep a runtime from the idle guard (its
// cancel key), shared by every process of the same state directory and
// remembered after the dashboard quits. A keep is a marker (package
// marker) beside the claims in ClaimsDir, named "kept-" and a hash of its
// key (the account, the runtime and its stretch of idleness: a keep lasts
// until the runtime has worked and gone idle again); it is pruned with
// the claims after ClaimsKept.

import "github.com/colabdash/colabdash/api/safefile/marker"

// keeps are the keeps' markers; the key each is made for is "kept", NUL
// and the keep's key, as the markers of earlier versions were.
func (n *Notifier) keeps() marker.Dir {
	return marker.Dir{State: n.o.StateDir, Name: ClaimsDir, Prefix: "kept-"}
}

// keepPath is the marker of keep key ("" with no state directory).
func (n *Notifier) keepPath(key string) string { return n.keeps().File("kept\x00" + key) }

// Keep records keep key (the idle guard's cancel key for one runtime's
// stretch of idleness) for this process and every other one sharing the
// state directory. A keep recorded already is no error. It fails when the
// marker cannot be made (ClaimsDir or the marker's name a symbolic link:
// marker.ErrNotDir, marker.ErrNotMarker; a disk error): the keep then
// holds in this process only.
func (n *Notifier) Keep(key string) error {
	n.mu.Lock()
	n.kept[key] = true
	n.mu.Unlock()
	if n.o.StateDir == "" {
		return nil
	}
	_, err := n.keeps().Create("kept\x00" + key)
	return err
}

// Kept reports whether keep key was recorded, by this process or another
// sharing the state directory (only a plain file counts: a link does
// not).
func (n *Notifier) Kept(key string) bool {
	n.mu.Lock()
	kept := n.kept[key]
	n.mu.Unlock()
	return kept || n.keeps().Exists("kept\x00"+key)
}
