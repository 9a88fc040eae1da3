package ops

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
)

// A session opened under a typed id is colabdash's once recorded, and no
// longer once forgotten or a week old; a colabdash-… id needs no record,
// and another runtime's session of the same id is not colabdash's.
func TestOpenedSessionRecords(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	const mine = "runtimes/rt-a/sessions/mysess"
	now := time.Now()
	if OpenedByColabdash(dir, mine) || !OpenedByColabdash("", "runtimes/rt-a/sessions/colabdash-1a2b3c4d") {
		t.Fatal("before any record: wrong owner")
	}
	if err := RecordOpenedSession(dir, mine, now); err != nil {
		t.Fatal(err)
	}
	if err := RecordOpenedSession(dir, "runtimes/rt-a/sessions/colabdash-1a2b3c4d", now); err != nil {
		t.Fatal(err)
	}
	if es, _ := os.ReadDir(filepath.Join(dir, OpenedSessionsDir)); len(es) != 1 {
		t.Errorf("records: %d, want 1 (a colabdash-… id needs none)", len(es))
	}
	if !OpenedByColabdash(dir, mine) || OpenedByColabdash(dir, "runtimes/rt-b/sessions/mysess") || OpenedByColabdash("", mine) {
		t.Error("recorded: wrong owner")
	}
	got := OpenedAmong(dir, []api.Session{{Name: mine}, {Name: "runtimes/rt-a/sessions/notebook-1"}, {Name: "runtimes/rt-a/sessions/colabdash-1a2b3c4d"}})
	if len(got) != 1 || got[0] != mine {
		t.Errorf("OpenedAmong: %v", got)
	}
	ForgetOpenedSession(dir, mine)
	if OpenedByColabdash(dir, mine) {
		t.Error("forgotten, still colabdash's")
	}

	// A record older than a week goes at the next record.
	if err := RecordOpenedSession(dir, mine, now); err != nil {
		t.Fatal(err)
	}
	old := now.Add(-OpenedSessionsKept - time.Hour)
	p := openedDir(dir).File(mine)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	if err := RecordOpenedSession(dir, "runtimes/rt-c/sessions/other", now); err != nil {
		t.Fatal(err)
	}
	if OpenedByColabdash(dir, mine) {
		t.Error("a record older than a week was kept")
	}
}
