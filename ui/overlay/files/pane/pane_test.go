package pane

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/colabfaketest"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/ui/common/commontest"
)

// setup starts an emulator with runtime rt-pane holding content/a.txt,
// content/sub/b.txt and a hostile name, and returns a pane on it.
func setup(t *testing.T) (*Pane, *colabfake.Server) {
	t.Helper()
	return setupWith(t, colabfake.Options{})
}

// emulated starts an emulator on loopback with the options o holding the
// runtime name ("runtimes/rt-…"), and returns it with an Opener of a
// Jupyter client for it that counts its calls in *opens (when not nil).
func emulated(t *testing.T, o colabfake.Options, name string, opens *int) (*colabfake.Server, Opener) {
	t.Helper()
	srv, _ := colabfaketest.Start(t, o)
	rt, err := srv.AddRuntime(api.Runtime{Name: api.RuntimeName(name), ConnectionInfo: &api.ConnectionInfo{}})
	if err != nil {
		t.Fatal(err)
	}
	return srv, func(context.Context) (*jupyter.Client, error) {
		if opens != nil {
			*opens++
		}
		return jupyter.New(jupyter.Options{Runtime: rt.Name, Info: *rt.ConnectionInfo})
	}
}

// setupWith is setup with the emulator's options o.
func setupWith(t *testing.T, o colabfake.Options) (*Pane, *colabfake.Server) {
	t.Helper()
	srv, open := emulated(t, o, "runtimes/rt-pane", nil)
	c, _ := open(context.Background())
	dir := t.TempDir()
	for name, body := range map[string]string{"a.txt": "alpha", "evil\x1b]0;x\x07.txt": "e"} {
		p := filepath.Join(dir, "f")
		os.WriteFile(p, []byte(body), 0o644)
		f, _ := os.Open(p)
		if _, err := c.Upload(context.Background(), "content/"+name, f, int64(len(body)), nil); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if _, err := c.Mkdir(context.Background(), "content/sub"); err != nil {
		t.Fatal(err)
	}
	return New(context.Background(), "rt-pane", open, nil), srv
}

// onAFile is setup's pane listing content/ with its cursor on a.txt
// (sub/ is listed first), and a.txt's target; another selection fails
// the test.
func onAFile(t *testing.T) (*Pane, Target) {
	t.Helper()
	p, _ := setup(t)
	drive(t, p, p.Init())
	p.Move(1)
	sel, ok := p.Selection()
	if !ok || sel.Path != "content/a.txt" || sel.Name != "a.txt" {
		t.Fatalf("selected %+v, want content/a.txt", sel)
	}
	return p, sel
}

// drive runs cmd and every command its messages lead to
// (commontest.Drive), handing each message to p, and returns the
// messages seen; one p does not take fails the test.
func drive(t *testing.T, p *Pane, cmd tea.Cmd) []tea.Msg {
	t.Helper()
	return commontest.Drive(t, cmd, func(msg tea.Msg) tea.Cmd {
		next, handled := p.Update(msg)
		if !handled {
			t.Fatalf("the pane did not take its own message %T", msg)
		}
		return next
	})
}

func names(p *Pane) []string {
	var out []string
	for _, e := range p.ls.entries {
		out = append(out, e.Name)
	}
	return out
}

func TestPaneBrowseDownloadUploadDelete(t *testing.T) {
	p, _ := setup(t)
	drive(t, p, p.Init())
	if got := strings.Join(names(p), ","); got != "sub,a.txt,evil\x1b]0;x\x07.txt" {
		t.Fatalf("listing %q, want directories first", got)
	}
	// View: exactly h lines, none wider than w, no control sequence from a
	// name, the cursor line marked.
	lines := p.View(50, 6, func(s string) string { return "> " + s })
	if len(lines) != 6 {
		t.Fatalf("%d lines, want 6", len(lines))
	}
	for _, l := range lines {
		if ansi.StringWidth(strings.TrimPrefix(l, "> ")) > 50 || strings.ContainsAny(l, "\x1b\x07") {
			t.Errorf("line %q too wide or not sanitized", l)
		}
	}
	if !strings.HasPrefix(lines[1], "> ") || !strings.Contains(lines[1], "sub/") {
		t.Errorf("cursor line %q", lines[1])
	}
	// Enter the directory, then back up.
	drive(t, p, p.Enter())
	if p.Dir() != "content/sub" || len(p.ls.entries) != 0 || !strings.Contains(strings.Join(p.View(60, 3, nil), "\n"), "empty") {
		t.Fatalf("in sub: dir %q entries %v", p.Dir(), names(p))
	}
	drive(t, p, p.Up())
	if p.Dir() != "content" {
		t.Fatalf("after Up: %q", p.Dir())
	}
	// Download a.txt into a directory.
	p.Move(1)
	out := t.TempDir()
	sel, _ := p.Selection()
	msgs := drive(t, p, p.Download(sel, out, false))
	done := doneOf(t, msgs)
	if done.Err != nil || !strings.Contains(done.Text, "downloaded a.txt") {
		t.Fatalf("download: %+v", done)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "a.txt")); string(b) != "alpha" {
		t.Fatalf("downloaded %q", b)
	}
	// To the current directory, it says where it landed whole.
	t.Chdir(out)
	os.Remove(filepath.Join(out, "a.txt"))
	done = doneOf(t, drive(t, p, p.Download(sel, "", false)))
	if want := "downloaded a.txt → " + filepath.Join(out, "a.txt") + " (5 B)"; done.Err != nil || done.Text != want {
		t.Fatalf("download here: %+v, want %q", done, want)
	}
	// Upload a local file into the current directory.
	local := filepath.Join(out, "up.bin")
	os.WriteFile(local, []byte("uploaded"), 0o644)
	done = doneOf(t, drive(t, p, p.Upload(p.Here(), local, false)))
	if done.Err != nil || !strings.Contains(strings.Join(names(p), ","), "up.bin") {
		t.Fatalf("upload: %+v, listing %v", done, names(p))
	}
	// A missing local file: one line, nothing uploaded.
	done = doneOf(t, drive(t, p, p.Upload(p.Here(), filepath.Join(out, "nope"), false)))
	if !IsNotFound(done.Err) || strings.Contains(done.Err.Error(), "\n") {
		t.Fatalf("missing local file: %v", done.Err)
	}
	// Delete the selected entry (the directory).
	p.Move(-10)
	sel, _ = p.Selection()
	done = doneOf(t, drive(t, p, p.Delete(sel)))
	if done.Err != nil || strings.Contains(strings.Join(names(p), ","), "sub") {
		t.Fatalf("delete: %+v, listing %v", done, names(p))
	}
}

func doneOf(t *testing.T, msgs []tea.Msg) DoneMsg {
	t.Helper()
	for _, m := range msgs {
		if d, ok := m.(DoneMsg); ok {
			return d
		}
	}
	t.Fatalf("no DoneMsg among %v", msgs)
	return DoneMsg{}
}

// A listing that arrives after the user moved on is dropped; another
// pane's messages are not taken.
func TestPaneDropsStaleAnswers(t *testing.T) {
	p, _ := setup(t)
	drive(t, p, p.Init())
	p.Move(0)
	old := p.Enter() // content/sub, answered late
	newer := p.Refresh()
	drive(t, p, newer)
	if _, handled := p.Update(old()); !handled || p.Dir() != "content" {
		t.Fatalf("a stale answer moved the pane to %q", p.Dir())
	}
	other := New(context.Background(), "rt-pane", nil, nil)
	if _, handled := other.Update(ListedMsg{pane: p.id, gen: 1}); handled {
		t.Fatal("a pane took another pane's message")
	}
}

// The transfer line shows direction, name, a bar and percent
// when the size is known, bytes and rate; a delete counts what it removed.
func TestPaneStatus(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := New(context.Background(), "rt-x", nil, func() time.Time { return now })
	p.xfer = &transfer{op: "download", name: "model.pt", done: 50_000_000, total: 100_000_000, start: now.Add(-5 * time.Second)}
	if got := p.Status(); got != "↓ model.pt ██████████░░░░░░░░░░ 50% · 50.0 MB / 100.0 MB · 10.0 MB/s" {
		t.Fatalf("status %q", got)
	}
	p.xfer.done = 25_000_000
	if got := p.Status(); !strings.HasPrefix(got, "↓ model.pt █████░░░░░░░░░░░░░░░ 25% · 25.0 MB / 100.0 MB") {
		t.Fatalf("a quarter: %q", got)
	}
	p.xfer = &transfer{op: "upload", name: "stream", done: 3_000_000, total: -1, start: now.Add(-time.Second)}
	if got := p.Status(); got != "↑ stream · 3.0 MB · 3.0 MB/s" {
		t.Fatalf("size unknown: %q", got)
	}
	p.xfer = &transfer{op: "delete", name: "runs", total: -1, start: now}
	if got := p.Status(); got != "✗ runs deleting…" {
		t.Fatalf("delete starting: %q", got)
	}
	p.xfer.done = 12
	if got := p.Status(); got != "✗ runs deleting… 12 removed" {
		t.Fatalf("delete under way: %q", got)
	}
}

// A DoneMsg ends only the transfer it answers: one of an older request,
// or one naming another runtime, leaves the transfer in flight alone.
func TestPaneDoneMsgMustMatchRuntimeAndRequest(t *testing.T) {
	p := New(context.Background(), "rt-b", nil, nil)
	p.req = 2
	p.xfer = &transfer{req: 2, op: "download", name: "b.bin", total: -1}
	for _, m := range []DoneMsg{
		{pane: p.id, req: 1, Runtime: "rt-b", Op: "download"},
		{pane: p.id, req: 2, Runtime: "rt-a", Op: "download"},
		{pane: p.id + 1, req: 2, Runtime: "rt-b", Op: "download"},
	} {
		if _, handled := p.Update(m); handled || !p.Busy() {
			t.Fatalf("%+v ended the transfer of request 2 on rt-b", m)
		}
	}
	if _, handled := p.Update(DoneMsg{pane: p.id, req: 2, Runtime: "rt-b", Op: "download"}); !handled || p.Busy() {
		t.Fatal("the transfer's own answer did not end it")
	}
}

// Modification times show in the zone the dashboard set, not the host's.
func TestPaneShowsTimesInItsLocation(t *testing.T) {
	p := New(context.Background(), "rt-x", nil, nil)
	p.ls.entries = []jupyter.Model{{Name: "a.txt", Type: "file", LastModified: time.Date(2026, 12, 1, 10, 30, 0, 0, time.UTC)}}
	p.ls.shown = p.ls.entries
	p.SetLocation(time.FixedZone("X", 5*3600))
	if v := strings.Join(p.View(80, 3, nil), "\n"); !strings.Contains(v, "2026-12-01 15:30") {
		t.Fatalf("a 10:30 UTC file in UTC+5:\n%s", v)
	}
}

// A pane works under the context it was given: once that ends, its
// listing fails (and shows why) instead of running on.
func TestPaneEndsWithItsParentContext(t *testing.T) {
	_, open := emulated(t, colabfake.Options{}, "runtimes/rt-pane", nil)
	ctx, cancel := context.WithCancel(context.Background())
	p := New(ctx, "rt-pane", open, nil)
	t.Cleanup(p.Close)
	cancel()
	drive(t, p, p.Init())
	if _, ok := p.Selected(); ok || !strings.Contains(strings.Join(p.View(100, 4, nil), "\n"), "canceled") {
		t.Fatalf("listed after its context ended:\n%s", strings.Join(p.View(100, 4, nil), "\n"))
	}
	// No parent: the background's.
	q := New(nil, "rt-pane", open, nil)
	t.Cleanup(q.Close)
	drive(t, q, q.Init())
	if v := strings.Join(q.View(100, 4, nil), "\n"); !strings.Contains(v, "(empty; hidden files are not listed)") {
		t.Fatalf("a pane without a parent context did not list content/:\n%s", v)
	}
}

// Pending names the transfer in flight, and nothing when idle.
func TestPanePending(t *testing.T) {
	p := New(context.Background(), "rt-x", nil, nil)
	if op, name, ok := p.Pending(); ok || op != "" || name != "" {
		t.Fatalf("idle pane: pending %q %q %v", op, name, ok)
	}
	p.xfer = &transfer{op: "upload", name: "model.pt", total: -1}
	if op, name, ok := p.Pending(); !ok || op != "upload" || name != "model.pt" {
		t.Fatalf("pending %q %q %v, want the upload of model.pt", op, name, ok)
	}
}

// Only a download interrupted keeps its part file: not one cancelled
// before it began, nor an upload.
func TestDoneMsgKeptPart(t *testing.T) {
	for _, tc := range []struct {
		d    DoneMsg
		want bool
	}{
		{DoneMsg{Op: "download", Err: jupyter.ErrInterrupted}, true},
		{DoneMsg{Op: "download", Err: context.Canceled}, false},
		{DoneMsg{Op: "upload", Err: jupyter.ErrInterrupted}, false},
		{DoneMsg{Op: "download"}, false},
	} {
		if got := tc.d.KeptPart(); got != tc.want {
			t.Errorf("%s ending with %v: kept part %v", tc.d.Op, tc.d.Err, got)
		}
	}
}

// A transfer's progress moves its own status only: a progress message of
// an older request leaves it as it was.
func TestPaneProgressOfItsOwnTransferOnly(t *testing.T) {
	p := New(context.Background(), "rt-x", nil, nil)
	p.req = 2
	p.xfer = &transfer{req: 2, op: "download", name: "b.bin", total: -1, start: time.Now()}
	p.Update(ProgressMsg{pane: p.id, req: 1, done: 9, total: 10})
	if p.xfer.done != 0 || p.xfer.total != -1 {
		t.Fatalf("an older request's progress moved the transfer to %d of %d", p.xfer.done, p.xfer.total)
	}
	p.Update(ProgressMsg{pane: p.id, req: 2, done: 5, total: 10})
	if got := p.Status(); !strings.Contains(got, "50%") || !strings.Contains(got, "5 B / 10 B") {
		t.Fatalf("status after its progress: %q", got)
	}
}

// The pane opens its Jupyter client once: later listings reuse it (one
// get_runtime per pane, not one per directory).
func TestPaneOpensItsClientOnce(t *testing.T) {
	opens := 0
	_, open := emulated(t, colabfake.Options{}, "runtimes/rt-pane", &opens)
	p := New(context.Background(), "rt-pane", open, nil)
	t.Cleanup(p.Close)
	drive(t, p, p.Init())
	drive(t, p, p.Refresh())
	drive(t, p, p.Refresh())
	if opens != 1 {
		t.Fatalf("three listings opened the client %d times", opens)
	}
}

// A directory entered starts on its first entry, even when it holds one
// named like an entry of the directory left.
func TestPaneEnteredDirectoryStartsAtItsTop(t *testing.T) {
	p, srv := setup(t)
	c, err := jupyter.New(jupyter.Options{Runtime: "runtimes/rt-pane", Info: *srv.Runtimes()[0].ConnectionInfo})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"content/sub/0.txt", "content/sub/a.txt"} {
		if _, err := c.Upload(context.Background(), name, strings.NewReader("x"), 1, nil); err != nil {
			t.Fatal(err)
		}
	}
	drive(t, p, p.Init()) // sub/, a.txt, …: the cursor on sub/
	drive(t, p, p.Enter())
	if e, ok := p.Selected(); !ok || e.Name != "0.txt" {
		t.Fatalf("entered sub/ on %q, want its first entry 0.txt", e.Name)
	}
}

// The client a transfer had to open (the pane's first listing failed) is
// kept: the listing after the transfer uses it.
func TestPaneKeepsTheClientATransferOpened(t *testing.T) {
	opens := 0
	_, open := emulated(t, colabfake.Options{}, "runtimes/rt-pane", &opens)
	p := New(context.Background(), "rt-pane", func(ctx context.Context) (*jupyter.Client, error) {
		if opens == 0 {
			opens++
			return nil, &api.Error{Code: api.Unavailable, Message: "try again"}
		}
		return open(ctx)
	}, nil)
	t.Cleanup(p.Close)
	drive(t, p, p.Init())
	local := filepath.Join(t.TempDir(), "up.txt")
	if err := os.WriteFile(local, []byte("up"), 0o600); err != nil {
		t.Fatal(err)
	}
	if d := doneOf(t, drive(t, p, p.Upload(p.Here(), local, false))); d.Err != nil || d.Text != "uploaded "+local+" → rt-pane:/content/up.txt (2 B)" {
		t.Fatalf("upload: %q, %v", d.Text, d.Err)
	}
	if opens != 2 {
		t.Fatalf("the failed listing, the upload and the listing after it opened the client %d times, want 2", opens)
	}
	if e, ok := p.Selected(); !ok || e.Name != "up.txt" {
		t.Fatalf("after the upload %q is selected, want up.txt:\n%s", e.Name, strings.Join(p.View(100, 4, nil), "\n"))
	}
}

// The cursor stops at the last entry and at the first.
func TestPaneMoveStopsAtTheEnds(t *testing.T) {
	p, _ := setup(t)
	drive(t, p, p.Init())
	p.Move(100)
	if e, ok := p.Selected(); !ok || e.Name != names(p)[len(names(p))-1] {
		t.Fatalf("moved past the end: %q, %v", e.Name, ok)
	}
	p.Move(-100)
	if e, ok := p.Selected(); !ok || e.Name != "sub" {
		t.Fatalf("moved past the top: %q, %v", e.Name, ok)
	}
}

// Close ends the pane: a listing started after it fails instead of
// reaching the runtime.
func TestPaneClosedListsNothing(t *testing.T) {
	p, _ := setup(t)
	p.Close()
	drive(t, p, p.Init())
	if _, ok := p.Selected(); ok || !strings.Contains(strings.Join(p.View(100, 4, nil), "\n"), "canceled") {
		t.Fatalf("a closed pane listed:\n%s", strings.Join(p.View(100, 4, nil), "\n"))
	}
}

// Before its first progress a transfer's size is unknown: its status
// shows no bar and no total.
func TestPaneTransferStartsWithItsSizeUnknown(t *testing.T) {
	p, sel := onAFile(t)
	cmd := p.Download(sel, t.TempDir(), false)
	if got := p.Status(); got != "↓ a.txt · 0 B" {
		t.Errorf("status before any progress: %q", got)
	}
	if d := doneOf(t, drive(t, p, cmd)); d.Err != nil {
		t.Fatalf("download: %v", d.Err)
	}
}

// An empty file's transfer has no bar (no share of nothing to draw),
// and no rate is shown before a byte moved or before any time passed.
func TestPaneStatusOfAnEmptyFile(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := New(context.Background(), "rt-x", nil, func() time.Time { return now })
	p.xfer = &transfer{op: "upload", name: "empty", total: 0, start: now.Add(-time.Second)}
	if got := p.Status(); got != "↑ empty · 0 B / 0 B" {
		t.Fatalf("status %q", got)
	}
	p.xfer = &transfer{op: "upload", name: "fast", done: 5, total: 10, start: now}
	if got := p.Status(); strings.Contains(got, "/s") {
		t.Fatalf("a rate with no time passed: %q", got)
	}
}

// After a delete the cursor stays where it was: on the entry that took
// the deleted one's place, or on the new last entry when the last was
// deleted; never back at the top.
func TestPaneDeleteKeepsTheCursorsPlace(t *testing.T) {
	p, sel := onAFile(t) // sub/, a.txt, evil…: on a.txt
	if done := doneOf(t, drive(t, p, p.Delete(sel))); done.Err != nil {
		t.Fatal(done.Err)
	}
	if e, ok := p.Selected(); !ok || !strings.HasPrefix(e.Name, "evil") {
		t.Fatalf("after deleting a.txt the cursor is on %q, want the next entry (evil…)", e.Name)
	}
	sel, _ = p.Selection()
	if done := doneOf(t, drive(t, p, p.Delete(sel))); done.Err != nil {
		t.Fatal(done.Err)
	}
	if e, ok := p.Selected(); !ok || e.Name != "sub" {
		t.Fatalf("after deleting the last entry the cursor is on %q, want the new last one (sub)", e.Name)
	}
}
