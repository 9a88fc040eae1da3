package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
)

// The files pane never offers to delete /content itself or another
// top-level directory (the rule `colabdash rm` applies, jupyter.Removable):
// x says why in the status line and opens no dialog. Paths are written
// with one slash, in the root as below it.
func TestFilesPaneNeverDeletesContent(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	putRemote(t, e, "rt-t4demo7k2p", "content/data.csv", "a,b\n")
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "f", "backspace")
	mustContain(t, m.View(), "FILES · rt-t4demo7k2p:/ ", "content/")
	m = e.press(t, m, "x")
	if m.dlg() != nil {
		t.Fatalf("x on content/ offered a delete:\n%s", m.View())
	}
	mustContain(t, m.View(), "not deleting rt-t4demo7k2p:/content", "never removes /content itself")
	m = e.press(t, m, "y")
	if !remoteExists(t, e, "rt-t4demo7k2p", "content/data.csv") {
		t.Fatal("/content/data.csv is gone after x, y on /content")
	}
	// Back into /content from the root: one slash in the title and in the
	// delete dialog.
	m = e.press(t, m, "enter")
	v := m.View()
	mustContain(t, v, "FILES · rt-t4demo7k2p:/content ")
	if strings.Contains(v, ":/"+"/") {
		t.Fatalf("a doubled slash in the title:\n%s", v)
	}
	m = e.press(t, m, "down", "x")
	v = m.View()
	mustContain(t, v, "Delete data.csv?", "rt-t4demo7k2p:/content/data.csv")
	if strings.Contains(v, ":/"+"/") {
		t.Fatalf("a doubled slash in the delete dialog:\n%s", v)
	}
}

// With NO_COLOR (no attributes at all) the files pane still shows which
// row is selected: the cursor's row, and only it, starts with "›", and the
// marker follows the cursor.
func TestFilesPaneSelectionShowsWithoutColour(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil) // NoColor
	putRemote(t, e, "rt-t4demo7k2p", "content/data.csv", "a,b\n")
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "f")
	marked := func(m Model) []string {
		var out []string
		for _, l := range strings.Split(m.View(), "\n") {
			if strings.Contains(l, "\x1b") {
				t.Fatalf("an escape code under NoColor: %q", l)
			}
			if strings.HasPrefix(l, "›") {
				out = append(out, l)
			}
		}
		return out
	}
	if rows := marked(m); len(rows) != 1 || !strings.Contains(rows[0], "sample_data/") {
		t.Fatalf("marked rows %q, want only sample_data/:\n%s", rows, m.View())
	}
	m = e.press(t, m, "down")
	if rows := marked(m); len(rows) != 1 || !strings.Contains(rows[0], "data.csv") {
		t.Fatalf("marked rows %q after down, want only data.csv:\n%s", rows, m.View())
	}
}

// A remote name with control characters: the listing and the status line
// show it the same way (through termtext: ␛ for ESC), and d refuses to
// make it a local file name (one line saying D takes a name); D into a
// directory is refused the same way, D to a file name downloads it.
func TestFilesPaneControlCharacterName(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir) // d downloads into the current directory
	const evil = "evil\x1b[31mRED\x1b]0;pwned\a.txt"
	const shown = "evil␛[31mRED␛]0;pwned␇.txt" // termtext.Line(evil)
	e, m := emuModel(t, colabfake.Options{}, nil)
	putRemote(t, e, "rt-t4demo7k2p", "content/"+evil, "x")
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "f", "down")
	mustContain(t, m.View(), "› ", shown)
	m = e.press(t, m, "d")
	v := m.View()
	mustContain(t, v, "not downloading "+shown+": its name contains control characters (D: type a local name)")
	if strings.Contains(v, `\x1b`) {
		t.Fatalf("the name shown Go-quoted:\n%s", v)
	}
	m = e.press(t, m, "D")
	m = typeText(e, t, m, dir)
	m = e.press(t, m, "enter")
	v = m.View()
	mustContain(t, v, "download failed", "rt-t4demo7k2p:", shown)
	if strings.Contains(v, `\x1b`) {
		t.Fatalf("the name shown Go-quoted in the error:\n%s", v)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("a file was written under the remote name: %v", ents)
	}
	m = e.press(t, m, "D")
	m = typeText(e, t, m, filepath.Join(dir, "safe.txt"))
	m = e.press(t, m, "enter")
	if b, err := os.ReadFile(filepath.Join(dir, "safe.txt")); err != nil || string(b) != "x" {
		t.Fatalf("D to a typed name: %q, %v\n%s", b, err, m.View())
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
	// A local failure: the parent "directory" is a file.
	blocker := filepath.Join(dir, "ok.csv")
	m = e.press(t, m, "D")
	m = typeText(e, t, m, filepath.Join(blocker, "x.csv"))
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
