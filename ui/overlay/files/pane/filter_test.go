package pane

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
)

// A directory larger than the pane keeps opens with its
// first MaxShown entries and its count; the filter narrows them as typed
// and, applied, finds matches among all the entries.
func TestPaneLargeDirectoryAndFilter(t *testing.T) {
	const n = MaxShown + 2000
	p := largeDirPane(t, n)
	drive(t, p, p.Init())
	view := func() string { return strings.Join(p.View(200, 6, nil), "\n") }
	if e, ok := p.Selected(); !ok || e.Name != "many" {
		t.Fatalf("content/ shows %q, %v:\n%s", e.Name, ok, view())
	}
	drive(t, p, p.Enter())
	if total, shown := p.Counts(); total != n || shown != MaxShown {
		t.Fatalf("counts %d, %d", total, shown)
	}
	if v := view(); !strings.Contains(v, "12000 entries, first 10000 shown (/ filters them all)") ||
		!strings.Contains(v, colabfake.SyntheticName(1)) {
		t.Fatalf("large directory:\n%s", v)
	}
	// Typed: among the entries kept (img_000001 … img_010000).
	p.SetFilter("IMG_00999")
	if _, shown := p.Counts(); shown != 10 {
		t.Fatalf("filter among the kept: %d shown\n%s", shown, view())
	}
	p.SetFilter("img_0110")
	if v := view(); !strings.Contains(v, `filter "img_0110": 0 of the first 10000 of 12000 (enter: search them all)`) ||
		!strings.Contains(v, "no entry matches the filter") {
		t.Fatalf("filter past the kept:\n%s", v)
	}
	// Applied: the directory is listed again, keeping what matches.
	drive(t, p, p.ApplyFilter())
	if total, shown := p.Counts(); total != n || shown != 100 {
		t.Fatalf("applied filter: %d, %d\n%s", total, shown, view())
	}
	if e, ok := p.Selected(); !ok || e.Name != colabfake.SyntheticName(11000) {
		t.Fatalf("first match %q", e.Name)
	}
	if v := view(); !strings.Contains(v, `filter "img_0110": 100 of 12000`) {
		t.Fatalf("applied filter:\n%s", v)
	}
	// Narrowing an applied filter needs no listing; clearing it does.
	p.SetFilter("img_01100")
	if p.ApplyFilter() != nil {
		t.Fatal("a narrower filter listed again")
	}
	p.SetFilter("")
	drive(t, p, p.ApplyFilter())
	if _, shown := p.Counts(); shown != MaxShown || p.Filter() != "" {
		t.Fatalf("cleared: %d shown, filter %q", shown, p.Filter())
	}
	// Leaving the directory drops the filter.
	p.SetFilter("img")
	drive(t, p, p.Up())
	if p.Filter() != "" || p.Dir() != "content" {
		t.Fatalf("up: filter %q in %q", p.Filter(), p.Dir())
	}
}

// largeDirPane returns a pane on runtime rt-big of an emulator whose
// content/many holds n synthetic (empty, read-only) files.
func largeDirPane(t *testing.T, n int) *Pane {
	t.Helper()
	_, open := emulated(t, colabfake.Options{ManyFiles: n, TokenTTL: 24 * time.Hour}, "runtimes/rt-big", nil)
	p := New(context.Background(), "rt-big", open, nil)
	t.Cleanup(p.Close)
	return p
}

// A search of all the entries (the filter applied with enter in a
// directory larger than the pane keeps) survives a download: the listing
// after the transfer is the same search, so the header still counts its
// matches among all the entries and the cursor stays on the file
// downloaded (a second d downloads it again, not "select a file to
// download" over the first 10000 entries, none of which matches).
func TestPaneKeepsSearchAndSelectionAfterDownload(t *testing.T) {
	const n = MaxShown + 2000
	p := largeDirPane(t, n)
	drive(t, p, p.Init())
	drive(t, p, p.Enter()) // content/many
	view := func() string { return strings.Join(p.View(200, 6, nil), "\n") }
	p.SetFilter("img_0110")
	drive(t, p, p.ApplyFilter())
	p.Move(5)
	want := colabfake.SyntheticName(11005)
	sel, ok := p.Selection()
	if !ok || sel.Name != want {
		t.Fatalf("selected %q, %v, want %q:\n%s", sel.Name, ok, want, view())
	}
	done := doneOf(t, drive(t, p, p.Download(sel, t.TempDir(), false)))
	if done.Err != nil {
		t.Fatalf("download: %v", done.Err)
	}
	if v := view(); !strings.Contains(v, `filter "img_0110": 100 of 12000`) || strings.Contains(v, "of the first") {
		t.Fatalf("after the download the search is gone:\n%s", v)
	}
	if e, ok := p.Selected(); !ok || e.Name != want {
		t.Fatalf("after the download the cursor is on %q, %v, want %q:\n%s", e.Name, ok, want, view())
	}
	// The search narrowed further as typed (no listing needed) stays as
	// typed too.
	p.SetFilter("img_01100") // the cursor stays on img_011005
	p.Move(-2)
	want = colabfake.SyntheticName(11003)
	if sel, ok = p.Selection(); !ok || sel.Name != want {
		t.Fatalf("narrowed: selected %q, %v, want %q:\n%s", sel.Name, ok, want, view())
	}
	if done := doneOf(t, drive(t, p, p.Download(sel, t.TempDir(), false))); done.Err != nil {
		t.Fatalf("download: %v", done.Err)
	}
	if v := view(); !strings.Contains(v, `filter "img_01100": 10 of 12000`) {
		t.Fatalf("after the download the narrowed filter is gone:\n%s", v)
	}
	if e, ok := p.Selected(); !ok || e.Name != want {
		t.Fatalf("after the download the cursor is on %q, %v, want %q:\n%s", e.Name, ok, want, view())
	}
}

// A search whose matches are more than the pane keeps is itself
// incomplete: narrowed to matches past the first MaxShown, enter lists
// the directory again (and the title says it would).
func TestPaneSearchWithMoreMatchesThanKept(t *testing.T) {
	const n = MaxShown + 2000
	p := largeDirPane(t, n)
	drive(t, p, p.Init())
	drive(t, p, p.Enter()) // content/many: img_000001 … img_012000
	p.SetFilter("img")
	drive(t, p, p.ApplyFilter())
	if total, shown := p.Counts(); total != n || shown != MaxShown {
		t.Fatalf("a search matching all: counts %d, %d", total, shown)
	}
	p.SetFilter("img_0110") // narrower, but its matches were not kept
	if v := strings.Join(p.View(200, 6, nil), "\n"); !strings.Contains(v, "(enter: search them all)") {
		t.Fatalf("the narrowed search does not offer to search them all:\n%s", v)
	}
	if p.ApplyFilter() == nil {
		t.Fatal("enter on a narrowed search whose matches were not all kept listed nothing")
	}
}

// In a directory the pane keeps whole, a filter is complete as typed:
// the title counts its matches of all, and enter lists nothing again.
func TestPaneFilterInASmallDirectory(t *testing.T) {
	p, _ := setup(t)
	drive(t, p, p.Init())
	p.SetFilter("A.TXT")
	if v := p.View(200, 4, nil)[0]; !strings.HasSuffix(v, `filter "A.TXT": 1 of 3`) {
		t.Fatalf("title %q", v)
	}
	if p.ApplyFilter() != nil {
		t.Fatal("enter listed a directory the pane kept whole")
	}
}
