package logview

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
	"github.com/colabdash/colabdash/ui/ops"
)

// fakeSource is a LogSource the test feeds: each Next takes the next
// chunk (or error) fed, or waits for one until its context ends.
type fakeSource struct {
	ch     chan fakeNext
	closed chan struct{}
}

type fakeNext struct {
	c   ops.LogChunk
	err error
}

func newFake() *fakeSource {
	return &fakeSource{ch: make(chan fakeNext, 64), closed: make(chan struct{})}
}

func (f *fakeSource) Next(ctx context.Context) (ops.LogChunk, error) {
	select {
	case n := <-f.ch:
		return n.c, n.err
	case <-ctx.Done():
		return ops.LogChunk{}, ctx.Err()
	}
}

func (f *fakeSource) Close() error {
	select {
	case <-f.closed:
	default:
		close(f.closed)
	}
	return nil
}

// viewer is a viewer under test: the overlay, its source, the Context it
// is drawn in and the read it waits on.
type viewer struct {
	t    *testing.T
	o    *Overlay
	src  *fakeSource
	c    *common.Context
	next tea.Cmd
	off  int64
}

// open opens a viewer of job train-4kq9zt on rt-alpha in a w×h dashboard.
func open(t *testing.T, w, h int) *viewer {
	t.Helper()
	src := newFake()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	o := New(ctx, Target{Kind: "job", ID: "train-4kq9zt", Runtime: "r-alpha"}, src)
	return &viewer{t: t, o: o, src: src, c: commontest.OverlayContext(w, h, false, commontest.Alpha()), next: o.Init()}
}

// feed hands data to the source and lets the viewer take it, as the app
// does: its pending read answers, and Update folds the answer.
func (v *viewer) feed(data string) {
	v.t.Helper()
	v.src.ch <- fakeNext{c: ops.LogChunk{Data: []byte(data), Off: v.off}}
	v.off += int64(len(data))
	v.step()
}

// end hands the job's final status to the viewer.
func (v *viewer) end(st jobs.Status) {
	v.t.Helper()
	v.src.ch <- fakeNext{c: ops.LogChunk{Off: v.off, Ended: &st}}
	v.step()
}

// step runs the pending read and folds its answer.
func (v *viewer) step() tea.Msg {
	v.t.Helper()
	if v.next == nil {
		v.t.Fatal("the viewer asked for no read")
	}
	msg := v.next()
	m, ok := msg.(Msg)
	if !ok || m.Owner() != v.o {
		v.t.Fatalf("the read answered %T, not a message of its viewer", msg)
	}
	v.next = v.o.Update(m, v.c.Now())
	return msg
}

// lines feeds n numbered lines "line 1" … "line n" after from.
func (v *viewer) lines(from, n int) {
	v.t.Helper()
	var b strings.Builder
	for i := from + 1; i <= from+n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	v.feed(b.String())
}

// screen is what the viewer draws, plain.
func (v *viewer) screen() string {
	v.t.Helper()
	return ansi.Strip(commontest.Screen(v.t, v.o, v.c))
}

// rows are the log's rows on screen (the body, below the header's two
// lines, less its title and its footer line), plain.
func (v *viewer) rows() []string {
	v.t.Helper()
	ls := strings.Split(v.screen(), "\n")
	return ls[3 : 3+v.c.Layout.H-4-2]
}

// press hands keys to the viewer and returns the last effect.
func (v *viewer) press(keys ...string) common.Effect {
	v.t.Helper()
	return commontest.Press(v.t, v.o, v.c, keys...)
}

// lastRow is the last non-empty row of the log.
func (v *viewer) lastRow() string {
	rs := v.rows()
	for i := len(rs) - 1; i >= 0; i-- {
		if strings.TrimSpace(rs[i]) != "" {
			return strings.TrimRight(rs[i], " ")
		}
	}
	return ""
}
