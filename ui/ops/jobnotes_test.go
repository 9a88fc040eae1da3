package ops

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The notes of the jobs this machine started: added, replaced by id,
// read back in order, forgotten; a missing file is no notes; a note that
// is not valid is refused when saved and dropped when read.
func TestJobNotesRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "colabdash")
	if notes, err := JobNotes(dir); err != nil || len(notes) != 0 {
		t.Fatalf("no file: %v, %v", notes, err)
	}
	t0 := time.Date(2026, 12, 7, 5, 0, 0, 0, time.UTC)
	a := JobNote{ID: "train-4kq9zt", Runtime: "runtimes/run-1a2b", File: "train.py", Started: t0}
	b := JobNote{ID: "eval-9zz0ab", Runtime: "runtimes/rt-x", File: "src/eval.py", Started: t0.Add(time.Minute), DeleteWhenDone: true}
	for _, n := range []JobNote{a, b} {
		if err := SaveJobNote(dir, n); err != nil {
			t.Fatal(err)
		}
	}
	a.DeleteWhenDone = true // replaced, not added
	if err := SaveJobNote(dir, a); err != nil {
		t.Fatal(err)
	}
	notes, err := JobNotes(dir)
	if err != nil || len(notes) != 2 || notes[0] != b || notes[1] != a {
		t.Fatalf("notes %+v, %v", notes, err)
	}
	if st, err := os.Stat(filepath.Join(dir, JobNotesFile)); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the notes file: %v, %v", st, err)
	}
	if err := ForgetJobNote(dir, b.ID); err != nil {
		t.Fatal(err)
	}
	if err := ForgetJobNote(dir, "never-noted"); err != nil {
		t.Fatal(err)
	}
	if notes, err := JobNotes(dir); err != nil || len(notes) != 1 || notes[0] != a {
		t.Errorf("after forgetting %s: %+v, %v", b.ID, notes, err)
	}
	for _, bad := range []JobNote{
		{ID: "../../etc", Runtime: "runtimes/rt-x"},
		{ID: "Train", Runtime: "runtimes/rt-x"},
		{ID: "ok-1", Runtime: "rt-x"},
		{ID: "ok-1", Runtime: "runtimes/rt-x/sessions/s"},
		{ID: "ok-1", Runtime: "runtimes/RT_X"},
	} {
		if err := SaveJobNote(dir, bad); err == nil {
			t.Errorf("saved %+v", bad)
		}
	}
	if err := SaveJobNote("", a); err != nil {
		t.Errorf("no state directory: %v", err)
	}
}

// A notes file written by someone else is read bounded: the notes that
// are not valid (an id that could escape a path, a runtime that is not
// one) are dropped, the others kept; a file that is not JSON, or too
// large, is an error, and saving then refuses to replace it.
func TestJobNotesReadsUntrustedFiles(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, JobNotesFile)
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`[{"id": "../x", "runtime": "runtimes/a"}, {"id": "good-1", "runtime": "runtimes/rt-a", "file": "a.py"},
 {"id": "good-2", "runtime": "runtimes/../../x"}, {"id": "good-3\u001b[2J", "runtime": "runtimes/rt-a"}]`)
	if notes, err := JobNotes(dir); err != nil || len(notes) != 1 || notes[0].ID != "good-1" {
		t.Errorf("notes %+v, %v", notes, err)
	}
	write("not json")
	if _, err := JobNotes(dir); err == nil || !strings.Contains(err.Error(), JobNotesFile) {
		t.Errorf("not JSON: %v", err)
	}
	if err := SaveJobNote(dir, JobNote{ID: "new-1", Runtime: "runtimes/rt-a"}); err == nil {
		t.Error("a note saved over a file that could not be read")
	}
	if b, _ := os.ReadFile(file); string(b) != "not json" {
		t.Errorf("the file was replaced: %q", b)
	}
	write("[" + strings.Repeat(" ", 1<<20) + "]")
	if _, err := JobNotes(dir); err == nil {
		t.Error("a 1 MiB notes file was read")
	}
}

// The notes file keeps the newest MaxJobNotes notes, so it never grows
// past what is read back.
func TestJobNotesKeepsTheNewest(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 12, 7, 5, 0, 0, 0, time.UTC)
	for i := 0; i < MaxJobNotes+5; i++ {
		n := JobNote{ID: "job-" + strings.Repeat("a", i%3+1) + "-" + string(rune('a'+i%26)) + string(rune('a'+i/26)), Runtime: "runtimes/rt-a",
			File: strings.Repeat("f", 100) + ".py", Started: t0.Add(time.Duration(i) * time.Minute)}
		if err := SaveJobNote(dir, n); err != nil {
			t.Fatalf("note %d: %v", i, err)
		}
	}
	notes, err := JobNotes(dir)
	if err != nil || len(notes) != MaxJobNotes {
		t.Fatalf("%d notes, %v", len(notes), err)
	}
	for _, n := range notes {
		if n.Started.Before(t0.Add(5 * time.Minute)) {
			t.Errorf("an old note kept: %+v", n)
		}
	}
}
