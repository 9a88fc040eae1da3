package ui

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/overlay/files"
	"github.com/colabdash/colabdash/ui/overlay/files/pane"
	"github.com/colabdash/colabdash/ui/overlay/profile"
)

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

// holdProxy sits on loopback in front of a runtime's proxy and holds
// every request hold matches until the client gives up; arrived says
// when one came. It returns the URL to use as the runtime's
// connectionInfo.url.
func holdProxy(t *testing.T, upstream string, hold func(*http.Request) bool) (string, <-chan struct{}) {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	arrived := make(chan struct{}, 8)
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hold(r) {
			// Read the body first: the server notices the client going
			// away only once it has.
			_, _ = io.Copy(io.Discard, r.Body)
			arrived <- struct{}{}
			<-r.Context().Done()
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + u.Path, arrived
}

// The status line after closing the pane mid-transfer says what really
// happened, for the kind of transfer it was: an upload cancelled says so
// (no word of a partial download) and the runtime has no such file; a
// download cancelled says its part file is kept; a download that finished
// before its answer came says it finished, not that it was cancelled.
func TestFilesPaneCloseSaysHowTheTransferEnded(t *testing.T) {
	t.Run("upload cancelled", func(t *testing.T) {
		e, m := emuModel(t, colabfake.Options{}, nil)
		m = m.selectID(t, "rt-t4demo7k2p")
		ci := m.cx.Snap.Runtime(m.rt.Selected()).ConnectionInfo
		var arrived <-chan struct{}
		ci.URL, arrived = holdProxy(t, ci.URL, func(r *http.Request) bool {
			return r.Method == http.MethodPut && strings.Contains(r.URL.Path, "up.bin")
		})
		local := filepath.Join(t.TempDir(), "up.bin")
		if err := os.WriteFile(local, []byte("payload"), 0o644); err != nil {
			t.Fatal(err)
		}
		m = e.press(t, m, "f", "u")
		m = typeText(e, t, m, local)
		e.clk.add(DialogGrace)
		m, xfer := update(m, keyMsg("enter"))
		done := goRun(t, "enter on the upload dialog", xfer)
		select {
		case <-arrived:
		case <-time.After(20 * time.Second):
			t.Fatal("the upload never reached the runtime")
		}
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
	})
	t.Run("download cancelled", func(t *testing.T) {
		e, m := emuModel(t, colabfake.Options{}, nil)
		m, stall, xfer := startStalledDownload(t, e, m)
		m = e.press(t, m, "esc")
		waitFor(t, stall.ended, "the download stopping when its pane closed")
		m = drive(t, m, xfer)
		mustContain(t, m.View(), "download of data.csv on rt-t4demo7k2p cancelled: the partial download is kept")
	})
	t.Run("download finished first", func(t *testing.T) {
		e, m := emuModel(t, colabfake.Options{}, nil)
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
	for _, tc := range []struct{ typed, want string }{
		{"", "✕ type the path of a local file"},
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
	e, m := emuModel(t, colabfake.Options{}, func(o *Options) {
		o.Profiles = []string{"default", "work"}
		o.Connect = func(context.Context, string) (api.Service, ConnInfo, error) { return nil, ConnInfo{}, nil }
	})
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
