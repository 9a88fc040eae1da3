package files

import (
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
	"github.com/colabdash/colabdash/ui/overlay/files/pane"
)

// / filters the entries by name as it is typed; enter keeps the filter
// (and the pane), esc clears it; neither touches the runtimes table's own
// filter (no Filter or ClearFilter effect).
func TestFilterNarrowsKeepsAndClears(t *testing.T) {
	r := newRig(t, map[string]string{"content/data.csv": "a,b\n", "content/notes.txt": "n\n", "content/sample_data/r": "r"}, false, nil)
	commontest.MustContain(t, commontest.Screen(t, r.o, r.c), "data.csv", "notes.txt", "sample_data/")
	open, ok := r.press(t, "/").(common.Open)
	f, isFilter := open.Overlay.(*FilterOverlay)
	if !ok || !isFilter {
		t.Fatalf("/ opened %#v, want the filter line", open.Overlay)
	}
	for _, k := range "NOTE" {
		if e := f.HandleKey(commontest.Key(string(k)), r.c); e != nil {
			t.Fatalf("typing answered %#v", e)
		}
	}
	v := commontest.Screen(t, r.o, r.c, f)
	commontest.MustContain(t, v, "notes.txt", `filter "NOTE": 1 of 3`, "/NOTE", "enter apply · esc clear")
	if strings.Contains(v, "data.csv") || strings.Contains(v, "sample_data/") {
		t.Fatalf("the filter let other entries through:\n%s", v)
	}
	e := f.HandleKey(commontest.Key("enter"), r.c)
	if c, ok := e.(common.Close); !ok || c.Cmd != nil || c.Text != "" {
		t.Fatalf("enter answered %#v, want the line closed (nothing more to list)", e)
	}
	commontest.MustContain(t, commontest.Screen(t, r.o, r.c), `filter "NOTE": 1 of 3`)
	// esc on the pane clears the kept filter first; the pane stays open.
	if e := r.press(t, "esc"); !isRun(e) {
		t.Fatalf("esc with a kept filter answered %#v, want the filter cleared and the pane kept", e)
	}
	commontest.MustContain(t, commontest.Screen(t, r.o, r.c), "data.csv", "notes.txt", "sample_data/")
	for _, k := range "NOTE" {
		f.HandleKey(commontest.Key(string(k)), r.c)
	}
	f.HandleKey(commontest.Key("enter"), r.c)
	if e := r.press(t, "/", "esc"); e == nil {
		t.Fatal("esc on the filter line did nothing")
	} else if _, ok := e.(common.Close); !ok {
		t.Fatalf("esc answered %#v, want the line closed", e)
	}
	v = commontest.Screen(t, r.o, r.c)
	commontest.MustContain(t, v, "data.csv", "notes.txt", "sample_data/")
	if strings.Contains(v, `filter "`) {
		t.Fatalf("esc kept the filter:\n%s", v)
	}
	if e := NewFilter(r.o.Pane()).HandleKey(commontest.Key("ctrl+c"), r.c); e != (common.Quit{}) {
		t.Fatalf("ctrl+c on the filter line answered %#v, want quit", e)
	}
}

// isRun reports whether e runs a command (nil or not): the pane's own work.
func isRun(e common.Effect) bool { _, ok := e.(common.Run); return ok }

// On a directory larger than the pane keeps (pane.MaxShown entries), the
// filter line says that enter searches all of its entries; on one the
// pane keeps whole, that enter applies the filter.
func TestFilterLineOnALargeDirectory(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{pane.MaxShown + 1, "enter: search all 10001 · esc clear"}, {pane.MaxShown, "enter apply · esc clear"}} {
		r := newRigWith(t, colabfake.Options{ManyFiles: tc.n}, nil, false, nil)
		p := r.o.Pane()
		r.press(t, "enter") // into the large directory
		if total, _ := p.Counts(); total != tc.n {
			t.Fatalf("%d entries listed, want %d:\n%s", total, tc.n, commontest.Screen(t, r.o, r.c))
		}
		commontest.MustContain(t, commontest.Draw(t, r.o, r.c, NewFilter(p))[28], tc.want)
	}
}

// Reopened on a kept filter, the line holds it selected: typing replaces
// it. A filter longer than the screen keeps the line's hint on screen.
func TestFilterLineReopenedAndLong(t *testing.T) {
	r := newRig(t, map[string]string{"content/data.csv": "a,b\n", "content/notes.txt": "n\n"}, false, nil)
	r.press(t, "/", "n", "o", "t", "enter")
	if r.o.Pane().Filter() != "not" {
		t.Fatalf("filter %q after typing not", r.o.Pane().Filter())
	}
	f := NewFilter(r.o.Pane())
	f.HandleKey(commontest.Key("d"), r.c)
	if got := r.o.Pane().Filter(); got != "d" {
		t.Fatalf("typing on the reopened line: filter %q, want the kept one replaced", got)
	}
	for range 150 {
		f.HandleKey(commontest.Key("x"), r.c)
	}
	if line := strings.TrimRight(commontest.Draw(t, r.o, r.c, f)[28], " "); !strings.HasSuffix(line, "enter apply · esc clear") || !strings.Contains(line, "xxx") {
		t.Fatalf("a long filter's line: %q", line)
	}
}
