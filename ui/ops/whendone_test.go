package ops

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Two processes that see one job end claim its delete: the first gets
// it, the second does not, another job is claimed apart; a marker older
// than WhenDoneClaimsKept is pruned; without a state directory every
// claim is granted.
func TestClaimWhenDoneOnceAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	if !ClaimWhenDone(dir, "runtimes/rt-a", "short-1", now) {
		t.Fatal("the first claim was refused")
	}
	if ClaimWhenDone(dir, "runtimes/rt-a", "short-1", now) {
		t.Fatal("a second process may delete the runtime too")
	}
	if !ClaimWhenDone(dir, "runtimes/rt-b", "short-1", now) || !ClaimWhenDone(dir, "runtimes/rt-a", "short-2", now) {
		t.Fatal("another job's delete was refused")
	}
	es, _ := os.ReadDir(filepath.Join(dir, WhenDoneClaimsDir))
	old := now.Add(-WhenDoneClaimsKept - time.Hour)
	for _, e := range es {
		if err := os.Chtimes(filepath.Join(dir, WhenDoneClaimsDir, e.Name()), old, old); err != nil {
			t.Fatal(err)
		}
	}
	ClaimWhenDone(dir, "runtimes/rt-c", "other-3", now)
	if es, _ := os.ReadDir(filepath.Join(dir, WhenDoneClaimsDir)); len(es) != 1 {
		t.Errorf("%d markers after pruning, want the new one", len(es))
	}
	if !ClaimWhenDone("", "runtimes/rt-a", "short-1", now) || !ClaimWhenDone("", "runtimes/rt-a", "short-1", now) {
		t.Error("without a state directory a claim was refused")
	}
}

// A when-done directory that is a symbolic link is not followed: no
// marker is made where it points, and the delete is not claimed away.
func TestClaimWhenDoneFollowsNoLink(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(dir, WhenDoneClaimsDir)); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	now := time.Now()
	if !ClaimWhenDone(dir, "runtimes/rt-a", "job-1", now) || !ClaimWhenDone(dir, "runtimes/rt-a", "job-1", now) {
		t.Error("a linked claims directory took the claim")
	}
	if es, _ := os.ReadDir(elsewhere); len(es) != 0 {
		t.Errorf("markers made through the link: %v", es)
	}
}
