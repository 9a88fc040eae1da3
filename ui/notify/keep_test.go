package notify

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A keep recorded by one process is seen by another sharing the state
// directory, and by a process started later (it outlives the dashboard
// that recorded it), for that key only; a link planted at a marker's name
// counts for nothing and is never written through; keeps are pruned with
// the claims.
func TestKeepSharedAndDurable(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	a := New(Options{StateDir: dir, Now: func() time.Time { return now }})
	b := New(Options{StateDir: dir, Now: func() time.Time { return now }})
	if err := a.Keep("acct\x00rt-1\x00first seen"); err != nil {
		t.Fatal(err)
	}
	if err := a.Keep("acct\x00rt-1\x00first seen"); err != nil {
		t.Errorf("keeping twice: %v", err)
	}
	if !b.Kept("acct\x00rt-1\x00first seen") {
		t.Error("another process does not see the keep")
	}
	later := New(Options{StateDir: dir, Now: func() time.Time { return now.Add(time.Hour) }})
	if !later.Kept("acct\x00rt-1\x00first seen") {
		t.Error("a process started later does not see the keep")
	}
	if later.Kept("acct\x00rt-1\x002026-12-07T10:00:00Z") || later.Kept("acct\x00rt-2\x00first seen") {
		t.Error("a keep stands for another stretch or runtime")
	}

	// A link planted where a keep's marker goes.
	target := filepath.Join(t.TempDir(), "outside")
	if err := os.WriteFile(target, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	key := "acct\x00rt-3\x00first seen"
	if err := os.Symlink(target, a.keepPath(key)); err != nil {
		t.Fatal(err)
	}
	if b.Kept(key) {
		t.Error("a link counts as a keep")
	}
	if err := b.Keep(key); err == nil {
		t.Error("keeping through a link: no error")
	}
	if got, _ := os.ReadFile(target); string(got) != "x" {
		t.Errorf("the link's target was written: %q", got)
	}

	old := now.Add(-ClaimsKept - time.Hour)
	if err := os.Chtimes(a.keepPath("acct\x00rt-1\x00first seen"), old, old); err != nil {
		t.Fatal(err)
	}
	New(Options{StateDir: dir, Now: func() time.Time { return now }})
	if New(Options{StateDir: dir}).Kept("acct\x00rt-1\x00first seen") {
		t.Error("a keep older than ClaimsKept was not pruned")
	}
}

// Without a state directory a keep holds in its process only.
func TestKeepWithoutStateDir(t *testing.T) {
	a, b := New(Options{}), New(Options{})
	if err := a.Keep("k"); err != nil || !a.Kept("k") || b.Kept("k") {
		t.Errorf("keep %v, kept here %v, elsewhere %v", err, a.Kept("k"), b.Kept("k"))
	}
}
