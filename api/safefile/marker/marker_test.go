package marker

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The first Create of a key makes its marker, private to the user; a
// second reports it there already, and so does every process but one
// racing for it; another key is apart.
func TestCreateOnceThenExists(t *testing.T) {
	d := Dir{State: filepath.Join(t.TempDir(), "state"), Name: "claims"}
	if d.Exists("job-1") {
		t.Fatal("a marker exists before any Create")
	}
	if created, err := d.Create("job-1"); !created || err != nil {
		t.Fatalf("first Create: created %v, %v", created, err)
	}
	if created, err := d.Create("job-1"); created || err != nil {
		t.Fatalf("second Create: created %v, %v; want an existing marker", created, err)
	}
	if !d.Exists("job-1") || d.Exists("job-2") {
		t.Errorf("Exists job-1 %v, job-2 %v", d.Exists("job-1"), d.Exists("job-2"))
	}
	if runtime.GOOS != "windows" {
		for _, p := range []string{filepath.Join(d.State, d.Name), d.File("job-1")} {
			if fi, err := os.Stat(p); err != nil || fi.Mode().Perm()&0o077 != 0 {
				t.Errorf("%s: %v: want it private to the user", p, err)
			}
		}
	}

	var wins atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if created, err := d.Create("job-2"); err != nil {
				t.Error(err)
			} else if created {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Errorf("%d racing Creates made the marker, want 1", wins.Load())
	}
}

// A prefix keeps two kinds of marker apart in one directory.
func TestPrefixKeepsKindsApart(t *testing.T) {
	state := t.TempDir()
	claims, keeps := Dir{State: state, Name: "notified"}, Dir{State: state, Name: "notified", Prefix: "kept-"}
	if _, err := keeps.Create("k"); err != nil {
		t.Fatal(err)
	}
	if claims.Exists("k") {
		t.Error("a keep counts as a claim of the same key")
	}
	if base := filepath.Base(keeps.File("k")); base[:5] != "kept-" || len(base) != 5+32 {
		t.Errorf("keep marker named %q, want kept- and 32 hex digits", base)
	}
}

// A symbolic link in the marker directory's place is refused and never
// followed: nothing is created, counted or pruned where it points.
func TestLinkedDirectoryRefused(t *testing.T) {
	state, elsewhere := t.TempDir(), t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(state, "claims")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	d := Dir{State: state, Name: "claims"}
	// A marker-shaped file where the link points, old enough to prune.
	planted := filepath.Join(elsewhere, filepath.Base(d.File("job-1")))
	if err := os.WriteFile(planted, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(planted, old, old); err != nil {
		t.Fatal(err)
	}
	if created, err := d.Create("job-2"); created || !errors.Is(err, ErrNotDir) {
		t.Errorf("Create through a linked directory: created %v, %v; want ErrNotDir", created, err)
	}
	if d.Exists("job-1") {
		t.Error("a marker behind a linked directory counts")
	}
	d.Prune(time.Now())
	if es, _ := os.ReadDir(elsewhere); len(es) != 1 || es[0].Name() != filepath.Base(planted) {
		t.Errorf("the link's target holds %v, want only the planted file", es)
	}

	// A dangling link and a plain file in the directory's place too.
	dangling := Dir{State: state, Name: "gone"}
	if err := os.Symlink(filepath.Join(elsewhere, "missing"), filepath.Join(state, "gone")); err != nil {
		t.Fatal(err)
	}
	file := Dir{State: state, Name: "file"}
	if err := os.WriteFile(filepath.Join(state, "file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, d := range []Dir{dangling, file} {
		if created, err := d.Create("job-1"); created || !errors.Is(err, ErrNotDir) {
			t.Errorf("%s: created %v, %v; want ErrNotDir", d.Name, created, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(elsewhere, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dangling link's target was made: %v", err)
	}
}

// A symbolic link at a marker's name is not a marker: it does not count,
// Create says so and neither follows nor replaces it.
func TestLinkAtMarkerDoesNotCount(t *testing.T) {
	d := Dir{State: t.TempDir(), Name: "claims"}
	if _, err := d.Create("other"); err != nil { // makes the directory
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "outside")
	if err := os.WriteFile(target, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, d.File("job-1")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if d.Exists("job-1") {
		t.Error("a link counts as a marker")
	}
	if created, err := d.Create("job-1"); created || !errors.Is(err, ErrNotMarker) {
		t.Errorf("Create over a link: created %v, %v; want ErrNotMarker", created, err)
	}
	if got, _ := os.ReadFile(target); string(got) != "x" {
		t.Errorf("the link's target was written: %q", got)
	}
	if fi, err := os.Lstat(d.File("job-1")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
}

// Prune removes the regular files last modified before the cut, and
// nothing newer and nothing else.
func TestPruneRemovesOnlyOldMarkers(t *testing.T) {
	d := Dir{State: t.TempDir(), Name: "claims"}
	now := time.Now()
	for _, k := range []string{"old", "new"} {
		if _, err := d.Create(k); err != nil {
			t.Fatal(err)
		}
	}
	sub := filepath.Join(d.State, d.Name, "a-directory")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	old := now.Add(-8 * 24 * time.Hour)
	for _, p := range []string{d.File("old"), sub} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	d.Prune(now.Add(-7 * 24 * time.Hour))
	if d.Exists("old") {
		t.Error("a marker older than the cut was kept")
	}
	if !d.Exists("new") {
		t.Error("a marker newer than the cut was removed")
	}
	if _, err := os.Lstat(sub); err != nil {
		t.Errorf("a directory was pruned: %v", err)
	}
}

// Without a state directory nothing is made anywhere.
func TestNoStateDirectory(t *testing.T) {
	t.Chdir(t.TempDir())
	d := Dir{Name: "claims"}
	if created, err := d.Create("k"); created || !errors.Is(err, ErrNoState) {
		t.Errorf("Create: created %v, %v; want ErrNoState", created, err)
	}
	d.Prune(time.Now())
	if d.Exists("k") || d.File("k") != "" {
		t.Error("a marker without a state directory")
	}
	if es, _ := os.ReadDir("."); len(es) != 0 {
		t.Errorf("files made in the working directory: %v", es)
	}
}

// Markers of one kind (Of a key) carry their own heartbeats: Touch makes
// and dates one, Newest reads the latest of the kind but for the keys it
// leaves out, and neither another kind nor a removed marker counts.
func TestTouchNewestRemove(t *testing.T) {
	base := Dir{State: filepath.Join(t.TempDir(), "state"), Name: "when-done", Prefix: "hold-"}
	holds, other := base.Of("runtimes/rt-1"), base.Of("runtimes/rt-2")
	if _, ok := holds.Newest(); ok {
		t.Fatal("a heartbeat before any Touch")
	}
	t0 := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	if err := holds.Touch("wait-a", t0); err != nil {
		t.Fatal(err)
	}
	if err := holds.Touch("wait-b", t0.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := other.Touch("wait-c", t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, ok := holds.Newest(); !ok || !got.Equal(t0) {
		t.Errorf("Newest = %v, %v; want %v", got, ok, t0)
	}
	if got, ok := holds.Newest("wait-a"); !ok || !got.Equal(t0.Add(-time.Minute)) {
		t.Errorf("Newest but wait-a = %v, %v; want wait-b's %v", got, ok, t0.Add(-time.Minute))
	}
	if err := holds.Touch("wait-b", t0.Add(time.Minute)); err != nil { // a heartbeat
		t.Fatal(err)
	}
	if got, _ := holds.Newest(); !got.Equal(t0.Add(time.Minute)) {
		t.Errorf("after a heartbeat Newest = %v, want %v", got, t0.Add(time.Minute))
	}
	for _, k := range []string{"wait-a", "wait-b", "wait-b"} { // twice: gone already is fine
		if err := holds.Remove(k); err != nil {
			t.Errorf("Remove %s: %v", k, err)
		}
	}
	if got, ok := holds.Newest(); ok {
		t.Errorf("Newest after every Remove = %v, want none", got)
	}
	if got, ok := other.Newest(); !ok || !got.Equal(t0.Add(time.Hour)) {
		t.Errorf("another kind's marker: Newest = %v, %v", got, ok)
	}
}

// A symbolic link at a marker's name is neither dated, read nor removed,
// and what it leads to is untouched.
func TestTouchRemoveLeaveLinks(t *testing.T) {
	d := Dir{State: t.TempDir(), Name: "when-done", Prefix: "hold-"}.Of("k")
	if err := d.Touch("other", time.Now()); err != nil { // makes the directory
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "outside")
	if err := os.WriteFile(target, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(target, old, old); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, d.File("linked")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := d.Touch("linked", time.Now()); !errors.Is(err, ErrNotMarker) {
		t.Errorf("Touch over a link: %v; want ErrNotMarker", err)
	}
	if err := d.Remove("linked"); !errors.Is(err, ErrNotMarker) {
		t.Errorf("Remove of a link: %v; want ErrNotMarker", err)
	}
	if fi, err := os.Stat(target); err != nil || !fi.ModTime().Equal(old) {
		t.Errorf("the link's target was dated: %v, %v", fi.ModTime(), err)
	}
	if fi, err := os.Lstat(d.File("linked")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was removed or replaced: %v", err)
	}
	if err := d.Remove("other"); err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Newest(); ok {
		t.Error("a link counts as a heartbeat")
	}

	// A linked marker directory: nothing made, dated or read through it.
	state, elsewhere := t.TempDir(), t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(state, "when-done")); err != nil {
		t.Fatal(err)
	}
	linked := Dir{State: state, Name: "when-done", Prefix: "hold-"}
	if err := linked.Touch("k", time.Now()); !errors.Is(err, ErrNotDir) {
		t.Errorf("Touch through a linked directory: %v; want ErrNotDir", err)
	}
	if err := linked.Remove("k"); !errors.Is(err, ErrNotDir) {
		t.Errorf("Remove through a linked directory: %v; want ErrNotDir", err)
	}
	if es, _ := os.ReadDir(elsewhere); len(es) != 0 {
		t.Errorf("made through the link: %v", es)
	}
}

// A Dir whose Name is not one path component makes, reads and removes
// nothing: no marker lands outside the state directory.
func TestNameOutsideTheStateDirectoryIsRefused(t *testing.T) {
	root := t.TempDir()
	state := filepath.Join(root, "state")
	for _, name := range []string{"../escape", "a/b", "..", ".", ""} {
		d := Dir{State: state, Name: name}
		if created, err := d.Create("k"); created || !errors.Is(err, ErrBadName) {
			t.Errorf("Name %q: Create = %v, %v; want ErrBadName", name, created, err)
		}
		if d.Exists("k") || d.File("k") != "" {
			t.Errorf("Name %q: Exists %v, File %q", name, d.Exists("k"), d.File("k"))
		}
	}
	if _, err := os.Stat(filepath.Join(root, "escape")); !os.IsNotExist(err) {
		t.Fatalf("a directory was made outside the state directory: %v", err)
	}
}
