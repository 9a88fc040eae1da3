package pane

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter"
)

// Field case 70: a directory larger than the pane keeps opens with its
// first MaxShown entries and its count; the filter narrows them as typed
// and, applied, finds matches among all the entries.
func TestPaneLargeDirectoryAndFilter(t *testing.T) {
	const n = MaxShown + 2000
	srv, _, err := colabfake.Start(context.Background(), "127.0.0.1:0", colabfake.Options{ManyFiles: n, TokenTTL: 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	rt, err := srv.AddRuntime(api.Runtime{Name: "runtimes/rt-big", ConnectionInfo: &api.ConnectionInfo{}})
	if err != nil {
		t.Fatal(err)
	}
	open := func(ctx context.Context) (*jupyter.Client, error) {
		return jupyter.New(jupyter.Options{Runtime: rt.Name, Info: *rt.ConnectionInfo})
	}
	p := New(context.Background(), "rt-big", open, nil)
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
