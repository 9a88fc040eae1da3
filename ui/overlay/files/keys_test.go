package files

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
)

// The pane's keys can be found: ? opens the help with the pane's keys
// first, P the profile picker over it, L the event log, q quits; the footer lists close
// and help first, then the transfers and the moves, each by its shortest
// key; in --readonly upload and delete are not offered and say why.
func TestKeysHelpAndFooter(t *testing.T) {
	r := newRig(t, map[string]string{"content/data.csv": "a"}, false, nil)
	if e := r.press(t, "?"); e != (common.Help{First: keymap.ScopeFiles}) {
		t.Fatalf("? answered %#v, want the help with the files pane's keys first", e)
	}
	if e := r.press(t, "P"); e != (common.Do{Op: common.OpProfiles}) {
		t.Fatalf("P answered %#v, want the profile picker", e)
	}
	// L opens the event log over the pane, so a long error's
	// "(L: in full)" is true here too.
	if e := r.press(t, "L"); e != (common.Do{Op: common.OpEvents}) {
		t.Fatalf("L answered %#v, want the event log", e)
	}
	if e := r.press(t, "q"); e != (common.Quit{}) {
		t.Fatalf("q answered %#v, want quit", e)
	}
	keys := commontest.KeyHelp(r.o, r.c)
	commontest.MustContain(t, keys, "esc close · ? help · d download · D save as… · u upload · x delete", "enter open", "← up", "r refresh")

	ro := newRig(t, nil, true, nil)
	keys = commontest.KeyHelp(ro.o, ro.c)
	if strings.Contains(keys, "upload") || strings.Contains(keys, "delete") {
		t.Fatalf("--readonly offers upload or delete: %s", keys)
	}
	for _, k := range []string{"u", "x"} {
		text, isErr, paneKey := said(ro.press(t, k))
		if !isErr || !paneKey || !strings.HasPrefix(text, "read-only mode: "+k) || !strings.HasSuffix(text, "is disabled") {
			t.Fatalf("%s in --readonly said %q (error %v, pane %v)", k, text, isErr, paneKey)
		}
	}
	// A runtime reclaimed under the pane: the next listing says so, in
	// one line.
	ro.srv.Reclaim("runtimes/rt-files")
	ro.press(t, "r")
	commontest.MustContain(t, commontest.Screen(t, ro.o, ro.c), "no longer exists")
}

// d and D on a directory, or with nothing listed, say what to select;
// esc and f close the pane (it says nothing when idle).
func TestDownloadNeedsAFileAndCloseKeys(t *testing.T) {
	r := newRig(t, map[string]string{"content/sub/x": "x"}, false, nil)
	for _, k := range []string{"d", "D"} {
		text, isErr, paneKey := said(r.press(t, k))
		if !isErr || !paneKey || !strings.HasPrefix(text, "select a file to download (enter") {
			t.Fatalf("%s on sub/ said %q", k, text)
		}
	}
	if e, ok := r.press(t, "f").(common.Close); !ok || e.Text != "" {
		t.Fatalf("f answered %#v, want the pane closed", e)
	}
	if _, isErr, _ := said(r.o.Answer(AskUpload, r.o.Pane().Here(), "", "x", r.c)); !isErr {
		t.Fatal("an answer acted on a closed pane")
	}
	r = newRig(t, nil, false, nil)
	if e, ok := r.press(t, "esc").(common.Close); !ok || e.Text != "" {
		t.Fatalf("esc answered %#v, want the pane closed", e)
	}
}

// The pane never offers to delete /content itself or another top-level
// directory (the rule `colabdash rm` applies, jupyter.Removable): x says
// why and asks nothing. Paths are written with one slash, in the root as
// below it.
func TestNeverOffersToDeleteContent(t *testing.T) {
	r := newRig(t, map[string]string{"content/data.csv": "a,b\n"}, false, nil)
	r.press(t, "backspace")
	commontest.MustContain(t, commontest.Screen(t, r.o, r.c), "FILES · rt-files:/ ", "content/")
	e := r.press(t, "x")
	if asked(e) != nil {
		t.Fatalf("x on content/ asked %+v", asked(e))
	}
	text, isErr, paneKey := said(e)
	if text != "not deleting /content: colabdash never removes /content itself or a top-level directory" || !isErr || !paneKey {
		t.Fatalf("x on content/ said %q", text)
	}
	if e := r.press(t, "y"); e != nil {
		t.Fatalf("y in the pane answered %#v", e)
	}
	if !r.exists(t, "content/data.csv") {
		t.Fatal("/content/data.csv is gone after x, y on /content")
	}
	r.press(t, "enter")
	v := commontest.Screen(t, r.o, r.c)
	commontest.MustContain(t, v, "FILES · rt-files:/content ")
	if strings.Contains(v, ":/"+"/") {
		t.Fatalf("a doubled slash in the title:\n%s", v)
	}
	q := asked(r.press(t, "down", "x"))
	if q == nil || q.ask != AskDelete || q.target.Path != "content/data.csv" || q.target.Name != "data.csv" || q.target.Dir {
		t.Fatalf("x on data.csv asked %+v", q)
	}
}

// A remote name with control characters: the listing shows it through
// termtext (␛ for ESC) and d refuses to make it a local file name, in one
// line saying D takes a name; D into a directory is refused the same way
// (the dialog's check says so at once), D to a file name downloads it.
func TestControlCharacterName(t *testing.T) {
	dir := workDir(t, nil) // d downloads into the current directory
	const evil = "evil\x1b[31mRED\x1b]0;pwned\a.txt"
	const shown = "evil␛[31mRED␛]0;pwned␇.txt" // termtext.Line(evil)
	r := newRig(t, map[string]string{"content/" + evil: "x"}, false, nil)
	commontest.MustContain(t, commontest.Screen(t, r.o, r.c), "› ", shown)
	text, _, _ := said(r.press(t, "d"))
	if text != "not downloading "+shown+": its name contains control characters (D: type a local name)" {
		t.Fatalf("d said %q", text)
	}
	q := asked(r.press(t, "D"))
	if q == nil || q.ask != AskDownloadTo || q.target.Name != evil {
		t.Fatalf("D asked %+v", q)
	}
	if _, err := planDownload(q, dir); !strings.HasPrefix(err, "unsafe remote name: its name contains control characters") {
		t.Fatalf("the dialog's check of a directory says %q", err)
	}
	text, _, _ = said(r.drive(t, runOf(t, r.o.Answer(AskDownloadTo, q.target, "", dir, r.c))))
	commontest.MustContain(t, text, "not downloading "+shown+": unsafe remote name")
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("a file was written under the remote name: %v", ents)
	}
	r.drive(t, runOf(t, r.o.Answer(AskDownloadTo, q.target, "", filepath.Join(dir, "safe.txt"), r.c)))
	if b, err := os.ReadFile(filepath.Join(dir, "safe.txt")); err != nil || string(b) != "x" {
		t.Fatalf("D to a typed name: %q, %v", b, err)
	}
}

// A files-scope plugin's key runs the plugin on the selected entry (its
// path from the runtime's root) and the footer offers it; with nothing
// selected it says so, and a dangerous plugin is off in --readonly.
func TestPluginKeys(t *testing.T) {
	r := newRig(t, map[string]string{"content/data.csv": "a,b\n"}, false, nil)
	if err := r.c.Keys.AddPlugin("view", "files", "V", "view it", false); err != nil {
		t.Fatal(err)
	}
	if err := r.c.Keys.AddPlugin("shred", "files", "Z", "", true); err != nil {
		t.Fatal(err)
	}
	if e := r.press(t, "V"); e != (common.RunPlugin{Name: "view", Runtime: "rt-files", File: "/content/data.csv"}) {
		t.Fatalf("V answered %#v", e)
	}
	commontest.MustContain(t, commontest.KeyHelp(r.o, r.c), "V view it", "Z shred")
	r.c.Keys.SetReadOnly(true)
	if text, isErr, paneKey := said(r.press(t, "Z")); text != "read-only mode: Z (plugin shred, dangerous) is disabled" || !isErr || !paneKey {
		t.Fatalf("a dangerous plugin in --readonly said %q", text)
	}
	empty := newRig(t, nil, false, nil)
	if err := empty.c.Keys.AddPlugin("view", "files", "V", "", false); err != nil {
		t.Fatal(err)
	}
	if text, isErr, paneKey := said(empty.press(t, "V")); text != "plugin view: no file selected" || !isErr || !paneKey {
		t.Fatalf("a plugin with nothing selected said %q", text)
	}
}

// ↑/↓ move by an entry, pgdn/pgup by a page (the screen's height less
// the pane's six lines of frame), g and G to the ends.
func TestMoveKeys(t *testing.T) {
	files := map[string]string{}
	for i := range 60 {
		files[fmt.Sprintf("content/f%02d", i)] = "x"
	}
	r := newRig(t, files, false, nil)
	selected := func() string {
		e, ok := r.o.Pane().Selected()
		if !ok {
			t.Fatalf("nothing selected:\n%s", commontest.Screen(t, r.o, r.c))
		}
		return e.Name
	}
	page := r.c.Layout.H - 6
	for _, tc := range []struct {
		keys []string
		want int
	}{
		{[]string{"down", "down", "up"}, 1},
		{[]string{"pgdown"}, 1 + page},
		{[]string{"pgup"}, 1},
		{[]string{"G"}, 59},
		{[]string{"g"}, 0},
	} {
		r.press(t, tc.keys...)
		if got, want := selected(), fmt.Sprintf("f%02d", tc.want); got != want {
			t.Fatalf("after %v: %s selected, want %s", tc.keys, got, want)
		}
	}
}
