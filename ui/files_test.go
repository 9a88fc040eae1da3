package ui

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/ui/common/commontest"
	"github.com/colabdash/colabdash/ui/common/commontest/holdproxy"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/ui/overlay/files"
	"github.com/colabdash/colabdash/ui/overlay/files/pane"
	"github.com/colabdash/colabdash/ui/overlay/profile"
)

// putRemote writes body to path on the emulator's runtime id.
func putRemote(t *testing.T, e *emu, id, path, body string) {
	t.Helper()
	for _, rt := range e.srv.Runtimes() {
		if rt.ID() != id {
			continue
		}
		c, err := jupyter.New(jupyter.Options{Runtime: rt.Name, Info: *rt.ConnectionInfo})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Upload(context.Background(), path, strings.NewReader(body), int64(len(body)), nil); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("no runtime %s", id)
}

// f opens the files pane of the selected runtime: its content/ listing;
// D downloads the selected file to a typed path, x then y deletes it, and
// both outcomes reach the status line and the event log.
func TestFilesPane(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	putRemote(t, e, "rt-t4demo7k2p", "content/data.csv", "a,b\n1,2\n")
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "f")
	v := m.View()
	mustContain(t, v, "FILES", "rt-t4demo7k2p:/content", "sample_data/", "data.csv", "8 B")
	if !topIs[*files.Overlay](m.scr) {
		t.Fatal("f did not open the files pane")
	}
	// The demo's sample_data directory comes first: in and out of it.
	m = e.press(t, m, "enter")
	mustContain(t, m.View(), "rt-t4demo7k2p:/content/sample_data", "README.md")
	m = e.press(t, m, "backspace")
	m = e.press(t, m, "D")
	mustContain(t, m.View(), "select a file to download")
	m = e.press(t, m, "down")
	out := filepath.Join(t.TempDir(), "copy.csv")
	m = e.press(t, m, "D")
	mustContain(t, m.View(), "Download data.csv")
	m = typeText(e, t, m, out)
	m = e.press(t, m, "enter")
	if b, err := os.ReadFile(out); err != nil || string(b) != "a,b\n1,2\n" {
		t.Fatalf("downloaded %q, %v\n%s", b, err, m.View())
	}
	mustContain(t, m.View(), "downloaded data.csv")
	// Delete asks first; only y confirms.
	m = e.press(t, m, "x")
	mustContain(t, m.View(), "Delete data.csv?")
	m = e.press(t, m, "n")
	m = e.press(t, m, "r")
	mustContain(t, m.View(), "data.csv")
	m = e.press(t, m, "x", "y")
	v = m.View()
	mustContain(t, v, "deleted rt-t4demo7k2p:/content/data.csv")
	if strings.Contains(strings.SplitN(v, "deleted", 2)[0], "data.csv") {
		t.Fatalf("data.csv still listed after the delete:\n%s", v)
	}
	// The event log has both transfers.
	m = e.press(t, m, "esc", "L")
	mustContain(t, m.View(), "files download", "files delete")
}

// ctrl+c while console code runs interrupts the session's kernel through
// the runtime proxy: the run ends with KeyboardInterrupt, the session and
// its state stay, and the status line says it was an interrupt.
func TestConsoleCtrlCInterruptsKernel(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "tab", "e")
	sess := m.ex.console().Session()
	e.clk.add(dialogGrace)
	m, _ = update(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("import time\ntime.sleep(3600)"), Paste: true})
	m, runCmd := update(m, keyMsg("enter"))
	done := goRun(t, "enter on the console's sleep", runCmd)
	for deadline := time.Now().Add(30 * time.Second); e.srv.RunningCode(sess) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the run never started on the server")
		}
		time.Sleep(5 * time.Millisecond)
	}
	m = e.press(t, m, "ctrl+c")
	mustContain(t, strings.Join(strings.Fields(m.View()), " "), "interrupted the kernel of session "+api.LastSegment(sess))
	if d := m.dlg(); d != nil {
		t.Fatalf("an interrupt that worked still asked to stop:\n%s", m.View())
	}
	if k := e.srv.KernelID(sess); e.srv.Interrupts(k) != 1 {
		t.Fatalf("kernel %q interrupted %d times", k, e.srv.Interrupts(k))
	}
	select {
	case msg := <-done:
		m, _ = update(m, msg)
	case <-time.After(30 * time.Second):
		t.Fatal("the run did not end after the interrupt")
	}
	mustContain(t, m.View(), "KeyboardInterrupt")
	found := false
	for _, s := range e.srv.Sessions("runtimes/rt-t4demo7k2p") {
		found = found || s.Name == sess
	}
	if !found {
		t.Fatal("the interrupt closed the session")
	}
}

// startStalledDownload opens the files pane of rt-t4demo7k2p through a
// holdproxy.Proxy that holds every download (/files/…) and starts a
// download of content/data.csv; it returns the model, the proxy and the
// transfer's command.
func startStalledDownload(t *testing.T, e *emu, m Model) (Model, holdproxy.Proxy, tea.Cmd) {
	t.Helper()
	putRemote(t, e, "rt-t4demo7k2p", "content/data.csv", "a,b\n")
	m = m.selectID(t, "rt-t4demo7k2p")
	ci := m.cx.Snap.Runtime(m.rt.Selected()).ConnectionInfo
	stall := holdproxy.Start(t, ci.URL, holdproxy.Downloads)
	ci.URL = stall.URL
	m = e.press(t, m, "f", "down", "D")
	m = typeText(e, t, m, filepath.Join(t.TempDir(), "data.csv"))
	m, xfer := enterDownload(t, e, m)
	commontest.WaitFor(t, stall.Arrived, "the download's request")
	return m, stall, xfer
}

// enterDownload presses enter on the download-to dialog and feeds back
// where the download lands (a local stat in a command); the download
// then runs, and the returned command waits for its first message.
func enterDownload(t *testing.T, e *emu, m Model) (Model, tea.Cmd) {
	t.Helper()
	e.clk.add(dialogGrace)
	m, plan := update(m, keyMsg("enter"))
	if plan == nil {
		t.Fatalf("enter started nothing:\n%s", m.View())
	}
	pm, ok := plan().(pane.PlanMsg)
	if !ok {
		t.Fatalf("enter did not plan the download first:\n%s", m.View())
	}
	m, xfer := update(m, pm)
	if xfer == nil {
		t.Fatalf("the plan started no download:\n%s", m.View())
	}
	return m, xfer
}

// The files pane's calls belong to the dashboard: a profile switch
// closes the pane and stops its transfer (it ran on the old account's
// runtime), and quitting stops it too.
func TestFilesPaneTransferEndsWithProfileAndQuit(t *testing.T) {
	t.Run("profile switch", func(t *testing.T) {
		release := make(chan struct{})
		e, m := emuModel(t, colabfake.Options{}, func(o *Options) {
			o.Profile, o.Profiles = "alpha", []string{"alpha", "beta"}
			o.Connect = func(ctx context.Context, name string) (api.Service, ConnInfo, error) {
				<-release
				return newFake(), ConnInfo{Endpoint: "https://" + name + ".example.com/mcp"}, nil
			}
		})
		m = e.press(t, m, "P", "down")
		m, connect := update(m, keyMsg("enter")) // connecting to beta…
		m, stall, xfer := startStalledDownload(t, e, m)
		goRun(t, "the stalled download", xfer)
		close(release)
		m, _ = update(m, connect())
		if m.Profile() != "beta" || topIs[*files.Overlay](m.scr) {
			t.Fatalf("after the switch: profile %q, files pane still open:\n%s", m.Profile(), m.View())
		}
		commontest.WaitFor(t, stall.Ended, "the old profile's download stopping")
	})
	t.Run("quit asks first", func(t *testing.T) {
		e, m := emuModel(t, colabfake.Options{}, nil)
		m, stall, xfer := startStalledDownload(t, e, m)
		goRun(t, "the stalled download", xfer)
		m, cmd := update(m, keyMsg("q"))
		mustNotQuit(t, cmd, "q quit from the files pane while a download ran, without asking")
		mustContain(t, flat(m.View()), "A download is running on rt-t4demo7k2p; quit anyway?",
			"Quitting cancels the download of data.csv from rt-t4demo7k2p")
		m = e.press(t, m, "n")
		if o, ok := find[*files.Overlay](m.scr); !ok || !o.Pane().Busy() {
			t.Fatalf("after no, the files pane or its download is gone:\n%s", m.View())
		}
		mustContain(t, flat(m.View()), "not quitting: the download of data.csv from rt-t4demo7k2p goes on")
		// From a layer over the pane (its help) the quit asks too.
		m = e.press(t, m, "?")
		m, cmd = update(m, keyMsg("q"))
		mustNotQuit(t, cmd, "q quit from the help over a running download, without asking")
		mustContain(t, flat(m.View()), "quit anyway?")
		e.clk.add(dialogGrace + time.Millisecond)
		m, cmd = update(m, keyMsg("y"))
		m, cmd = drainToQuit(t, m, cmd)
		if cmd == nil {
			t.Fatalf("y did not quit:\n%s", m.View())
		}
		commontest.WaitFor(t, stall.Ended, "the download stopping on quit")
	})
}

// A transfer's late answer names its runtime: the download cancelled on
// rt-t4demo7k2p's pane lands after the user opened rt-cpudemo4qx's, and
// neither speaks for that pane in the status line nor is logged against
// it.
func TestLateFilesAnswerStaysWithItsRuntime(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m, stall, xfer := startStalledDownload(t, e, m)
	m = e.press(t, m, "esc")
	mustContain(t, m.View(), "files pane closed: stopping the download of data.csv…")
	commontest.WaitFor(t, stall.Ended, "the download stopping when its pane closed")
	late := xfer()
	m = m.selectID(t, "rt-cpudemo4qx")
	m = e.press(t, m, "f")
	mustContain(t, m.View(), "rt-cpudemo4qx:/content")
	m, _ = update(m, late)
	if v := m.View(); strings.Contains(v, "download failed") {
		t.Fatalf("rt-t4demo7k2p's late answer reached rt-cpudemo4qx's pane:\n%s", v)
	}
	ev := m.Events()[0]
	if ev.Tool != "files download" || ev.Target != "runtimes/rt-t4demo7k2p" {
		t.Fatalf("the late answer was logged as %q on %q", ev.Tool, ev.Target)
	}
}

// A remote name with control characters in the D dialog: its title shows
// the name through termtext (␛ for ESC), and what is typed (a directory)
// is refused at once with the reason; enter does not download. (The
// listing, d's refusal and D to a file name: package files' unit test
// TestControlCharacterName.)
func TestFilesPaneControlCharacterName(t *testing.T) {
	dir := t.TempDir()
	const evil = "evil\x1b[31mRED\x1b]0;pwned\a.txt"
	const shown = "evil␛[31mRED␛]0;pwned␇.txt" // termtext.Line(evil)
	e, m := emuModel(t, colabfake.Options{}, nil)
	putRemote(t, e, "rt-t4demo7k2p", "content/"+evil, "x")
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "f", "down", "D")
	m = typeText(e, t, m, dir)
	m = e.press(t, m, "enter")
	mustContain(t, m.View(), "Download "+shown, "✕ unsafe remote name: its name contains control characters")
	if strings.Contains(m.View(), `\x1b`) {
		t.Fatalf("the name shown Go-quoted:\n%s", m.View())
	}
	m = e.press(t, m, "esc")
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("a file was written under the remote name: %v", ents)
	}
}

// The event log's files entries: the real duration of each transfer (not
// 0), a local failure's outcome in words ("local error", not UNKNOWN), and
// remote paths written as the pane writes them (rt:/content/…), in the
// status line and the event log alike.
func TestFilesEventLogEntries(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	putRemote(t, e, "rt-t4demo7k2p", "content/data.csv", "a,b\n")
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "f", "down", "D")
	dir := t.TempDir()
	m = typeText(e, t, m, filepath.Join(dir, "ok.csv"))
	m = e.press(t, m, "enter")
	if ev := m.Events()[0]; ev.Tool != "files download" || ev.Err != nil || ev.Latency <= 0 {
		t.Fatalf("the download's event: %+v, want ok with its duration", ev)
	}
	// A local failure the dialog cannot foresee: a directory where the
	// download's part file goes.
	if err := os.Mkdir(filepath.Join(dir, "x.csv.colabdash-part"), 0o755); err != nil {
		t.Fatal(err)
	}
	m = e.press(t, m, "D")
	m = typeText(e, t, m, filepath.Join(dir, "x.csv"))
	m = e.press(t, m, "enter")
	ev := m.Events()[0]
	if ev.Tool != "files download" || ev.Err == nil || ev.Latency <= 0 {
		t.Fatalf("the failed download's event: %+v", ev)
	}
	status := m.View()
	mustContain(t, status, "download failed: download rt-t4demo7k2p:/content/data.csv:")
	m = e.press(t, m, "esc", "L")
	v := m.View()
	mustContain(t, v, "files download", "local error", "rt-t4demo7k2p:/content/data.csv")
	if strings.Contains(v, "UNKNOWN") || strings.Contains(v, "rt-t4demo7k2p:content") {
		t.Fatalf("the event log says UNKNOWN or drops the path's slash:\n%s", v)
	}
}

// The status line after closing the pane mid-transfer says what really
// happened, for the kind of transfer it was: an upload cancelled says so
// (no word of a partial download) and the runtime has no such file; a
// download cancelled says its part file is kept; a download that finished
// before its answer came says it finished, not that it was cancelled.
//
// One dashboard meets each in turn from nothing open, the runtime's
// connectionInfo.url put back after each (a row may route it through a
// proxy that holds its transfer); each row's status names its own transfer.
func TestFilesPaneCloseSaysHowTheTransferEnded(t *testing.T) {
	e, shared := emuModel(t, colabfake.Options{}, nil)
	row := func(name string, f func(t *testing.T, m Model) Model) {
		t.Run(name, func(t *testing.T) {
			m := e.closeAll(t, shared, "rt-t4demo7k2p")
			ci := m.cx.Snap.Runtime(m.rt.Selected()).ConnectionInfo
			url := ci.URL
			shared = f(t, m)
			ci.URL = url
		})
	}
	row("upload cancelled", func(t *testing.T, m Model) Model {
		ci := m.cx.Snap.Runtime(m.rt.Selected()).ConnectionInfo
		held := holdproxy.Start(t, ci.URL, func(r *http.Request) bool {
			return r.Method == http.MethodPut && strings.Contains(r.URL.Path, "up.bin")
		})
		ci.URL = held.URL
		local := filepath.Join(t.TempDir(), "up.bin")
		if err := os.WriteFile(local, []byte("payload"), 0o644); err != nil {
			t.Fatal(err)
		}
		m = e.press(t, m, "f", "u")
		m = typeText(e, t, m, local)
		e.clk.add(dialogGrace)
		m, xfer := update(m, keyMsg("enter"))
		done := goRun(t, "enter on the upload dialog", xfer)
		commontest.WaitFor(t, held.Arrived, "the upload reaching the runtime")
		m = e.press(t, m, "esc")
		mustContain(t, m.View(), "files pane closed: stopping the upload of up.bin…")
		m = drive(t, m, func() tea.Msg { return <-done })
		v := m.View()
		mustContain(t, v, "upload of up.bin on rt-t4demo7k2p cancelled: the runtime's files are unchanged")
		if strings.Contains(v, "download") {
			t.Fatalf("the cancelled upload's status speaks of a download:\n%s", v)
		}
		if remoteExists(t, e, "rt-t4demo7k2p", "content/up.bin") {
			t.Fatal("content/up.bin exists after the cancelled upload")
		}
		return m
	})
	row("download cancelled", func(t *testing.T, m Model) Model {
		m, stall, xfer := startStalledDownload(t, e, m)
		m = e.press(t, m, "esc")
		commontest.WaitFor(t, stall.Ended, "the download stopping when its pane closed")
		m = drive(t, m, xfer)
		mustContain(t, m.View(), "download of data.csv on rt-t4demo7k2p cancelled: partial kept, resumes when downloaded again")
		return m
	})
	row("download finished first", func(t *testing.T, m Model) Model {
		putRemote(t, e, "rt-t4demo7k2p", "content/data.csv", "a,b\n")
		m = m.selectID(t, "rt-t4demo7k2p")
		out := filepath.Join(t.TempDir(), "data.csv")
		m = e.press(t, m, "f", "down", "D")
		m = typeText(e, t, m, out)
		m, xfer := enterDownload(t, e, m)
		msg := xfer() // the download is complete; its answer not taken yet
		for {
			if _, ok := msg.(pane.ProgressMsg); !ok {
				break
			}
			var next tea.Cmd
			m, next = update(m, msg)
			msg = next()
		}
		m = e.press(t, m, "esc")
		m, _ = update(m, msg)
		v := m.View()
		mustContain(t, v, "the download of data.csv on rt-t4demo7k2p finished before its pane closed: downloaded data.csv")
		if strings.Contains(v, "cancelled") {
			t.Fatalf("a download that finished is said to be cancelled:\n%s", v)
		}
		if b, err := os.ReadFile(out); err != nil || string(b) != "a,b\n" {
			t.Fatalf("the file on disk: %q, %v", b, err)
		}
		return m
	})
}

// The upload dialog checks what is typed as the upload will, while it is
// typed: nothing, a missing file and a directory are each refused with
// the reason (never "✓ valid"), and enter does not submit them; a file is
// accepted with where it goes.
func TestFilesUploadDialogValidatesLive(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	dir := t.TempDir()
	local := filepath.Join(dir, "up.bin")
	if err := os.WriteFile(local, []byte("payload"), 0o644); err != nil {
		t.Fatal(err)
	}
	m = e.press(t, m, "f", "u")
	// Nothing typed yet is no error, only what to type.
	if v := flat(m.View()); !strings.Contains(v, "type the path of a local file") || strings.Contains(v, "✕") {
		t.Fatalf("the untouched upload dialog shows an error:\n%s", v)
	}
	for _, tc := range []struct{ typed, want string }{
		{"", "type the path of a local file"}, // before enter: a hint
		{filepath.Join(dir, "nope"), "✕ no such local file or directory: " + filepath.Join(dir, "nope")},
		{dir, "✕ local error: " + dir + " is a directory (use colabdash cp -r)"},
	} {
		m = typeText(e, t, m, tc.typed)
		v := flat(m.View())
		mustContain(t, v, tc.want)
		if strings.Contains(v, "✓") {
			t.Fatalf("%q is shown as valid:\n%s", tc.typed, v)
		}
		m = e.press(t, m, "enter")
		if m.dlg() == nil {
			t.Fatalf("enter submitted %q:\n%s", tc.typed, m.View())
		}
		if tc.typed == "" {
			mustContain(t, flat(m.View()), "✕ type the path of a local file") // after enter: the error
		}
		for range tc.typed {
			m = e.press(t, m, "backspace")
		}
	}
	m = typeText(e, t, m, local)
	mustContain(t, m.View(), "✓ uploads 7 B to rt-t4demo7k2p:/content/up.bin")
	m = e.press(t, m, "enter")
	if !remoteExists(t, e, "rt-t4demo7k2p", "content/up.bin") {
		t.Fatalf("the upload did not happen:\n%s", m.View())
	}
}

// A download over an existing local file asks first (y only), naming the
// file and saying it exists; any other key keeps it. An upload over a
// remote file of the same name warns in its dialog and asks the same way.
func TestFilesPaneAsksBeforeReplacing(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir) // d downloads into the current directory
	e, m := emuModel(t, colabfake.Options{}, nil)
	putRemote(t, e, "rt-t4demo7k2p", "content/data.csv", "remote")
	if err := os.WriteFile("data.csv", []byte("local work"), 0o644); err != nil {
		t.Fatal(err)
	}
	local := func() string { b, _ := os.ReadFile(filepath.Join(dir, "data.csv")); return string(b) }
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "f", "down", "d")
	mustContain(t, flat(m.View()), "Replace data.csv?", "data.csv exists (10 B", "rt-t4demo7k2p:/content/data.csv replaces it", "y confirm")
	m = e.press(t, m, "n")
	mustContain(t, m.View(), "nothing downloaded: data.csv is kept as it was")
	if local() != "local work" {
		t.Fatalf("n replaced the local file: %q", local())
	}
	m = e.press(t, m, "d", "y")
	if local() != "remote" {
		t.Fatalf("y did not replace the local file: %q\n%s", local(), m.View())
	}
	// D to that file: the dialog warns, then asks the same way.
	if err := os.WriteFile("data.csv", []byte("local work"), 0o644); err != nil {
		t.Fatal(err)
	}
	m = e.press(t, m, "D")
	m = typeText(e, t, m, filepath.Join(dir, "data.csv"))
	mustContain(t, flat(m.View()), "! replaces the local file "+filepath.Join(dir, "data.csv")+" (asks first)")
	m = e.press(t, m, "enter")
	mustContain(t, m.View(), "Replace data.csv?")
	m = e.press(t, m, "esc")
	if local() != "local work" {
		t.Fatalf("esc replaced the local file: %q", local())
	}
	// Upload of a local data.csv into /content, which has one.
	m = e.press(t, m, "u")
	m = typeText(e, t, m, filepath.Join(dir, "data.csv"))
	mustContain(t, m.View(), "! replaces rt-t4demo7k2p:/content/data.csv on the runtime (asks first)")
	m = e.press(t, m, "enter")
	mustContain(t, flat(m.View()), "Replace data.csv on the runtime?", "rt-t4demo7k2p:/content/data.csv exists: uploading "+
		filepath.Join(dir, "data.csv")+" replaces it (6 B")
	m = e.press(t, m, "n")
	mustContain(t, m.View(), "nothing uploaded: rt-t4demo7k2p:/content/data.csv is kept as it was")
	if got := remoteBody(t, e, "content/data.csv"); got != "remote" {
		t.Fatalf("n replaced the runtime's file: %q", got)
	}
	m = e.press(t, m, "u")
	m = typeText(e, t, m, filepath.Join(dir, "data.csv"))
	m = e.press(t, m, "enter", "y")
	mustContain(t, m.View(), "uploaded", "→ rt-t4demo7k2p:/content/data.csv (10 B)")
	if got := remoteBody(t, e, "content/data.csv"); got != "local work" {
		t.Fatalf("y did not replace the runtime's file: %q", got)
	}
}

// remoteBody is the content of path on rt-t4demo7k2p.
func remoteBody(t *testing.T, e *emu, path string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "remote")
	if _, err := remoteClient(t, e, "rt-t4demo7k2p").Download(t.Context(), path, out, nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// flat is a view's text with dialog borders and line breaks gone, so a
// sentence wrapped inside a box reads whole.
func flat(v string) string {
	return strings.Join(strings.Fields(strings.NewReplacer("│", " ", "┌", " ", "└", " ").Replace(v)), " ")
}

// The files pane's keys can be found: ? opens the help with the pane's
// keys first (esc comes back to the pane); the footer fits every key in
// 100 columns and keeps close, help and the transfers in 80; P opens the
// profile picker over the pane (esc comes back); a key that does nothing
// during a transfer says why next to the progress; and a message about a
// pane key does not outlive the pane.
func TestFilesPaneDiscoverability(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, withProfiles("", "default", "work"))
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "f", "?")
	if !m.helpOpen() {
		t.Fatalf("? in the files pane opened no help:\n%s", m.View())
	}
	lines := strings.Split(m.View(), "\n")
	first := ""
	for i, l := range lines {
		if strings.Contains(l, "HELP") && i+1 < len(lines) {
			first = lines[i+1]
			break
		}
	}
	if !strings.Contains(first, "files pane") {
		t.Fatalf("the help does not start with the files pane's keys (%q):\n%s", first, m.View())
	}
	m = e.press(t, m, "esc")
	if !topIs[*files.Overlay](m.scr) {
		t.Fatalf("esc on the help did not come back to the files pane:\n%s", m.View())
	}
	for _, w := range []int{100, 80} {
		m, _ = update(m, tea.WindowSizeMsg{Width: w, Height: 30})
		keys := keyLine(m)
		mustContain(t, keys, "esc close", "? help", "d download", "D save as…", "u upload", "x delete")
		if w == 100 {
			mustContain(t, keys, "enter open", "← up", "r refresh")
		}
	}
	m, _ = update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	m = e.press(t, m, "P")
	if !topIs[*profile.Overlay](m.scr) {
		t.Fatalf("P in the files pane opened no profile picker:\n%s", m.View())
	}
	mustContain(t, m.View(), "switching profile closes the files pane of rt-t4demo7k2p")
	m = e.press(t, m, "esc")
	if !topIs[*files.Overlay](m.scr) {
		t.Fatalf("esc on the picker did not come back to the files pane:\n%s", m.View())
	}
	// A pane-only message goes with the pane.
	m = e.press(t, m, "d")
	mustContain(t, m.View(), "select a file to download")
	m = e.press(t, m, "esc")
	if strings.Contains(m.View(), "select a file to download") {
		t.Fatalf("the files pane's message outlived it:\n%s", m.View())
	}
}

// remoteClient is a Jupyter client on the emulator's runtime id.
func remoteClient(t *testing.T, e *emu, id string) *jupyter.Client {
	t.Helper()
	for _, rt := range e.srv.Runtimes() {
		if rt.ID() == id {
			c, err := jupyter.New(jupyter.Options{Runtime: rt.Name, Info: *rt.ConnectionInfo})
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
	}
	t.Fatalf("no runtime %s", id)
	return nil
}

// remoteExists reports whether path is on the emulator's runtime id.
func remoteExists(t *testing.T, e *emu, id, path string) bool {
	t.Helper()
	_, err := remoteClient(t, e, id).Stat(context.Background(), path)
	if err != nil && !errors.Is(err, jupyter.ErrNotFound) {
		t.Fatal(err)
	}
	return err == nil
}

// The files pane's question is a dialog like any other: when the screen
// was too small to show it and shows it again, a "y" typed at once does
// not answer it (its grace period starts anew), and the footer says how
// it is answered.
func TestFilesDialogGraceAfterTheScreenShowsItAgain(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	putRemote(t, e, "rt-t4demo7k2p", "content/data.csv", "a")
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "f", "down", "x")
	mustContain(t, m.View(), "Delete data.csv?", "y confirm")
	e.clk.add(time.Second) // long past the grace period
	m, _ = update(m, tea.WindowSizeMsg{Width: 40, Height: 10})
	m, _ = update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	m, cmd := update(m, keyMsg("y"))
	m = drive(t, m, cmd)
	if !remoteExists(t, e, "rt-t4demo7k2p", "content/data.csv") {
		t.Fatal("a y typed as the dialog showed again deleted the file")
	}
	mustContain(t, m.View(), "Delete data.csv?")
	m = e.press(t, m, "y")
	if remoteExists(t, e, "rt-t4demo7k2p", "content/data.csv") {
		t.Fatalf("y after the grace period did not delete:\n%s", m.View())
	}
}

// Goldens of the files pane and its dialogs (run with
// -update to rewrite them after a deliberate change of the screen).

// stableView masks what differs between runs and machines: times (the
// emulator's files carry the host's modification times) and the working
// directory a default local path starts from.
func stableView(t *testing.T, v string) []byte {
	t.Helper()
	if wd, err := os.Getwd(); err == nil {
		v = regexp.MustCompile(regexp.QuoteMeta(wd)).ReplaceAllString(v, "<cwd>")
	}
	v = regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?`).ReplaceAllString(v, "YYYY-MM-DD hh:mm")
	v = regexp.MustCompile(`\b\d\d:\d\d(:\d\d)?\b`).ReplaceAllString(v, "hh:mm")
	return []byte(v)
}

// Guards the files pane's layout and its download and delete dialogs at
// 100×30: a change of what they show fails here until the goldens are
// updated on purpose.
func TestFilesPaneGolden(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	putRemote(t, e, "rt-t4demo7k2p", "content/data.csv", "a,b\n1,2\n")
	m, _ = update(m, tea.WindowSizeMsg{Width: 100, Height: 30})
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "f")
	mustContain(t, m.View(), "data.csv")
	t.Run("pane", func(t *testing.T) { golden.RequireEqual(t, stableView(t, m.View())) })
	m = e.press(t, m, "down")
	t.Run("selected", func(t *testing.T) { golden.RequireEqual(t, stableView(t, m.View())) })
	dl := e.press(t, m, "D")
	mustContain(t, dl.View(), "Download data.csv")
	t.Run("download_dialog", func(t *testing.T) { golden.RequireEqual(t, stableView(t, dl.View())) })
	// Copies of a Model share one dashboard: esc closes the download dialog
	// before x asks about the same entry.
	rm := e.press(t, e.press(t, dl, "esc"), "x")
	mustContain(t, rm.View(), "Delete data.csv?")
	t.Run("delete_dialog", func(t *testing.T) { golden.RequireEqual(t, stableView(t, rm.View())) })
}
