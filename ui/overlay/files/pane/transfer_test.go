package pane

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter"
)

// Where a transfer writes or deletes: never over a file it was not told
// to replace, never through a link out of what the user named; and the
// trash hint it gives after a delete.

// Without replace, a transfer never replaces a file, even one that
// appeared after the dashboard looked (no question was asked about it):
// a download over an existing local file and an upload over an existing
// remote file stop with ErrExists and both files stay as they were; with
// replace they go ahead.
func TestTransfersReplaceOnlyWhenAsked(t *testing.T) {
	p, sel := onAFile(t)
	dir := t.TempDir()
	dst := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(dst, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := doneOf(t, drive(t, p, p.Download(sel, dir, false)))
	if !errors.Is(done.Err, jupyter.ErrExists) {
		t.Fatalf("download over an existing file without replace: %v, want ErrExists", done.Err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "mine" {
		t.Fatalf("the local file now holds %q", b)
	}
	if done = doneOf(t, drive(t, p, p.Download(sel, dst, true))); done.Err != nil {
		t.Fatal(done.Err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "alpha" {
		t.Fatalf("with replace the local file holds %q", b)
	}
	// Upload a local a.txt into content/, which has one.
	up := filepath.Join(t.TempDir(), "a.txt")
	if err := os.WriteFile(up, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	done = doneOf(t, drive(t, p, p.Upload(p.Here(), up, false)))
	if !errors.Is(done.Err, jupyter.ErrExists) {
		t.Fatalf("upload over an existing remote file without replace: %v, want ErrExists", done.Err)
	}
	if e, _ := entry(p, "a.txt"); e.Size != 5 {
		t.Fatalf("the remote a.txt is now %d bytes", e.Size)
	}
	if done = doneOf(t, drive(t, p, p.Upload(p.Here(), up, true))); done.Err != nil {
		t.Fatal(done.Err)
	}
	if e, _ := entry(p, "a.txt"); e.Size != 3 {
		t.Fatalf("with replace the remote a.txt is %d bytes", e.Size)
	}
}

// entry is the listed entry of the directory p shows named name.
func entry(p *Pane, name string) (jupyter.Model, bool) {
	for _, e := range p.Listing() {
		if e.Name == name {
			return e, true
		}
	}
	return jupyter.Model{}, false
}

// The files pane's download into a directory (d, or D with a directory
// typed) never writes through a symbolic link at the file's name there:
// the plan refuses it in one line, the download refuses it
// also with replace (the question may have been answered before the
// link appeared), and the link's target keeps its bytes. A file name the
// user types is theirs to be a link, as with cp, and is written through.
func TestPaneDownloadRefusesALinkInTheDirectory(t *testing.T) {
	p, sel := onAFile(t)
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "a.txt")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatalf("cannot make the symbolic link this test needs: %v", err)
	}
	if _, err := PlanDownload(sel, dir); !errors.Is(err, jupyter.ErrLocal) || !strings.Contains(err.Error(), link+" is a symbolic link") {
		t.Errorf("PlanDownload with a link at the name: %v, want ErrLocal naming it", err)
	}
	for _, replace := range []bool{false, true} {
		done := doneOf(t, drive(t, p, p.Download(sel, dir, replace)))
		if !errors.Is(done.Err, jupyter.ErrLocal) || !strings.Contains(done.Err.Error(), "symbolic link") || strings.Contains(done.Err.Error(), "\n") {
			t.Errorf("download (replace %v) onto a link: %v, want one ErrLocal line", replace, done.Err)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Fatalf("the link's target holds %q: the download wrote through the link", b)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the user's link was replaced: %v", err)
	}
	// Typed as the file name: the user's own link, written through.
	done := doneOf(t, drive(t, p, p.Download(sel, link, true)))
	if done.Err != nil {
		t.Fatal(done.Err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "alpha" {
		t.Errorf("a link named as the file: its target holds %q, want the download", b)
	}
}

// The pane's delete of a directory holding links to a sibling and to its
// parent removes nothing outside it: with the server's trash on, the
// directory goes whole; with it off (empty directories only), the delete
// fails in one line and removes nothing.
func TestPaneDeleteNeverFollowsLinks(t *testing.T) {
	for _, trash := range []bool{false, true} {
		files := t.TempDir()
		p, _ := setupWith(t, colabfake.Options{FilesDir: files, DeleteToTrash: trash})
		drive(t, p, p.Init()) // the tree exists now
		content := filepath.Join(files, "rt-pane", "content")
		os.MkdirAll(filepath.Join(content, "other"), 0o755)
		os.WriteFile(filepath.Join(content, "other", "o.txt"), []byte("sibling"), 0o644)
		os.WriteFile(filepath.Join(content, "sub", "f.txt"), []byte("inside"), 0o644)
		os.Symlink("../other", filepath.Join(content, "sub", "toother"))
		os.Symlink("..", filepath.Join(content, "sub", "up"))
		drive(t, p, p.Init())
		var sel Target
		for i := 0; i < 5; i++ {
			if s, ok := p.Selection(); ok && s.Name == "sub" {
				sel = s
				break
			}
			p.Move(1)
		}
		if sel.Name != "sub" {
			t.Fatalf("sub not found in %v", names(p))
		}
		done := doneOf(t, drive(t, p, p.Delete(sel)))
		if trash && done.Err != nil {
			t.Errorf("trash on: delete of sub: %v", done.Err)
		}
		if !trash && (!errors.Is(done.Err, jupyter.ErrNotRemoved) || strings.Contains(done.Err.Error(), "\n")) {
			t.Errorf("trash off: delete of sub: %v, want one ErrNotRemoved line", done.Err)
		}
		for _, keep := range []string{"other/o.txt", "a.txt"} {
			if _, err := os.Stat(filepath.Join(content, keep)); err != nil {
				t.Errorf("trash %v: %s outside sub was removed: %v", trash, keep, err)
			}
		}
	}
}

// The trash hint offers the purge command with the runtime id only when
// the id passes the paste rule.
func TestPurgeHintOnlyWithAPastableID(t *testing.T) {
	if got := PurgeHint("rt-abc"); got != "colabdash rm --purge rt-abc" {
		t.Errorf("plain id: %q", got)
	}
	for _, id := range []string{"rt;touch${IFS}pwned", "RT-ABC", "$(id)", ""} {
		if got := PurgeHint(id); strings.Contains(got, id) && id != "" || !strings.Contains(got, "with this runtime") {
			t.Errorf("%q: %q", id, got)
		}
	}
}

// A fast transfer of many small chunks does not make the dashboard redraw
// for each: over one second of its clock, a thousand chunks a millisecond
// apart bring at most one progress message every 200 ms (six), the status
// line following them; each message taken before the next chunk, so none
// is lost for the dashboard being slow.
func TestTransferProgressIsThrottled(t *testing.T) {
	open := func(context.Context) (*jupyter.Client, error) { return nil, nil }
	p := New(context.Background(), "rt-a", open, nil)
	var mu sync.Mutex
	clock := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	p.wall = func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	const chunks, size = 1000, 1000 * 64 << 10
	step, stepped := make(chan struct{}), make(chan struct{})
	cmd := p.transferCmd("download", "big.bin", func(_ context.Context, _ *jupyter.Client, progress jupyter.Progress) (string, error) {
		for i := int64(1); i <= chunks; i++ {
			<-step
			mu.Lock()
			clock = clock.Add(time.Millisecond)
			mu.Unlock()
			progress(i*size/chunks, size)
			stepped <- struct{}{}
		}
		<-step // ends once the test has looked at the last chunk
		return "downloaded big.bin", nil
	})
	var ch <-chan tea.Msg
	messages := 0
	for i := 0; i < chunks; i++ {
		step <- struct{}{}
		<-stepped
		var msg tea.Msg
		if ch == nil {
			msg = cmd() // the first chunk's progress goes out at once
		} else {
			select {
			case msg = <-ch:
			default:
				continue
			}
		}
		pm, ok := msg.(ProgressMsg)
		if !ok {
			t.Fatalf("chunk %d: %T, want a progress message", i+1, msg)
		}
		ch = pm.ch
		messages++
		p.Update(pm)
		if want := fmt.Sprintf(" %d%% ", (int64(i)+1)*100/chunks); !strings.Contains(p.Status(), want) {
			t.Errorf("after chunk %d the status line reads %q, want%q", i+1, p.Status(), want)
		}
	}
	if messages < 2 || messages > 6 {
		t.Errorf("a thousand chunks over one second brought %d progress messages, want at most 6 (one each 200 ms)", messages)
	}
	step <- struct{}{}
	done := doneOf(t, drive(t, p, wait(ch)))
	if done.Err != nil || done.Text != "downloaded big.bin" || p.Status() != "" {
		t.Errorf("the transfer ended with %v %q, status %q", done.Err, done.Text, p.Status())
	}
}
