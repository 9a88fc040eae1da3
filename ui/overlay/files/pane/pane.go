// Package pane is the dashboard's files pane for one runtime: browse
// its Jupyter server's tree from content/, enter directories, download the
// selected file, upload a local path, delete. It is a self-contained Bubble
// Tea component: Update never blocks or does I/O; every listing and
// transfer is a tea.Cmd (through api/jupyter) whose message names the pane
// and the request generation it answers, so a late answer for a closed
// pane or an older directory is dropped.
//
// The files overlay (ui/overlay/files) shows a Pane, routes keys to its
// methods and draws View; transfers report progress with ProgressMsg (at
// most five a second) and end with DoneMsg, which the dashboard shows in
// the status line and the event log.
package pane

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api/jupyter"
)

// Opener returns a Jupyter client for the pane's runtime (normally from a
// get_runtime call); it runs inside a tea.Cmd, never in Update.
type Opener func(ctx context.Context) (*jupyter.Client, error)

// Root is where browsing starts.
const Root = "content"

var nextID atomic.Int64

// Pane is the files pane of one runtime. The zero value is not usable;
// use New.
type Pane struct {
	id      int64
	runtime string
	open    Opener
	jc      *jupyter.Client
	now     func() time.Time
	// wall is the clock a transfer's progress is throttled by (time.Now;
	// a test's own): the redraws it saves are the terminal's, in real time.
	wall func() time.Time
	loc  *time.Location // where modification times are shown (nil: Local)

	dir     string
	ls      kept // the directory's entries kept and the filter (filter.go)
	cursor  int
	offset  int
	gen     int
	loading bool
	err     string

	xfer *transfer
	req  int // the last transfer's request id

	// ctx is the parent of every listing and transfer; Close ends it.
	ctx  context.Context
	stop context.CancelFunc
}

// New returns a pane for runtime id that lists content/ once Init's
// command runs. Every listing and transfer runs under parent (nil:
// context.Background()) and ends with it or with Close. now is the clock
// for transfer rates.
func New(parent context.Context, runtime string, open Opener, now func() time.Time) *Pane {
	if now == nil {
		now = time.Now
	}
	if parent == nil {
		parent = context.Background()
	}
	ctx, stop := context.WithCancel(parent)
	return &Pane{id: nextID.Add(1), runtime: runtime, open: open, now: now, wall: time.Now, dir: Root, ctx: ctx, stop: stop}
}

// SetLocation sets the time zone the listing shows modification times in
// (the dashboard's Options.Location, as its dialogs use); nil is Local.
func (p *Pane) SetLocation(loc *time.Location) { p.loc = loc }

// Runtime returns the pane's runtime id.
func (p *Pane) Runtime() string { return p.runtime }

// Dir returns the directory shown ("content/sample_data").
func (p *Pane) Dir() string { return p.dir }

// Busy reports whether a transfer or delete is in flight.
func (p *Pane) Busy() bool { return p.xfer != nil }

// Pending returns the transfer or delete in flight: its op ("download",
// "upload", "delete") and the file's name as the server sent it; ok is
// false when none is.
func (p *Pane) Pending() (op, name string, ok bool) {
	if p.xfer == nil {
		return "", "", false
	}
	return p.xfer.op, p.xfer.name, true
}

// Answers reports whether d ends this pane's transfer in flight (also
// once the pane is closed: its answer still comes).
func (p *Pane) Answers(d DoneMsg) bool {
	return d.pane == p.id && d.Runtime == p.runtime && p.xfer != nil && d.req == p.xfer.req
}

// Init lists content/.
func (p *Pane) Init() tea.Cmd { return p.listFiltered(p.dir, "") }

// Refresh lists the current directory again (with the filter applied when
// it was).
func (p *Pane) Refresh() tea.Cmd { return p.listFiltered(p.dir, p.ls.listFilter) }

// listFiltered lists dir keeping the entries that pass filter (filter.go).
func (p *Pane) listFiltered(dir, filter string) tea.Cmd {
	p.gen++
	p.loading, p.err = true, ""
	id, gen, jc, open, parent := p.id, p.gen, p.jc, p.open, p.ctx
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				msg = ListedMsg{pane: id, gen: gen, dir: dir, err: fmt.Errorf("internal error listing %s: %v", dir, r)}
			}
		}()
		ctx, cancel := context.WithTimeout(parent, 90*time.Second)
		defer cancel()
		c := jc
		if c == nil {
			var err error
			if c, err = open(ctx); err != nil {
				return ListedMsg{pane: id, gen: gen, dir: dir, err: err}
			}
		}
		kept, total, matched, err := collect(ctx, c, dir, filter)
		return ListedMsg{pane: id, gen: gen, dir: dir, filter: filter, jc: c, entries: kept, total: total, matched: matched, err: err}
	}
}

// Update takes the pane's own messages (others are ignored) and returns
// the next command. handled is false for a message that is not this
// pane's, and for a DoneMsg that does not answer its transfer in flight.
func (p *Pane) Update(msg tea.Msg) (cmd tea.Cmd, handled bool) {
	switch m := msg.(type) {
	case ListedMsg:
		if m.pane != p.id {
			return nil, false
		}
		if m.jc != nil {
			p.jc = m.jc
		}
		if m.gen != p.gen {
			return nil, true // an older directory's answer
		}
		p.loading = false
		if m.err != nil {
			p.err = errText(m.err)
			return nil, true
		}
		if m.dir != p.dir {
			// A directory entered starts unfiltered; in the same directory
			// the filter stays as typed (a refresh after a transfer, or a
			// search answered, keeps a filter typed narrower since).
			p.ls.filter = m.filter
			p.cursor, p.offset = -1, 0 // refilter keeps the cursor's entry only in the same directory
		}
		p.dir, p.ls.entries = m.dir, sortEntries(m.entries)
		p.ls.listFilter, p.ls.total, p.ls.matched = m.filter, m.total, m.matched
		// The same directory listed again (a refresh, the listing after a
		// delete) keeps the cursor on its entry, else on its row: the
		// entry after one deleted, or the new last one.
		p.cursor = p.ls.refilter(nameOf(p.Selected()), p.cursor)
		return nil, true
	case ProgressMsg:
		if m.pane != p.id {
			return nil, false
		}
		if p.xfer != nil && p.xfer.req == m.req {
			p.xfer.done, p.xfer.total = m.done, m.total
		}
		return wait(m.ch), true
	case DoneMsg:
		if !p.Answers(m) {
			return nil, false // another pane's, another runtime's, or an older request's
		}
		if m.jc != nil {
			p.jc = m.jc
		}
		p.xfer = nil
		// The directory is listed again as it was listed: with the filter
		// applied (a search of all its entries) it is that search again,
		// so the entries shown and the cursor's stay what they were.
		return p.Refresh(), true
	}
	return nil, false
}

// Selected returns the entry under the cursor.
func (p *Pane) Selected() (jupyter.Model, bool) {
	// While a listing error is shown the entries are not on screen, so
	// nothing is selected (a key must act only on what the user sees).
	if p.err != "" || p.cursor < 0 || p.cursor >= len(p.ls.shown) {
		return jupyter.Model{}, false
	}
	return p.ls.shown[p.cursor], true
}

// Move moves the cursor by n entries (clamped).
func (p *Pane) Move(n int) {
	p.cursor = max(0, min(len(p.ls.shown)-1, p.cursor+n))
}

// Enter opens the selected directory; on a file it does nothing and
// returns nil.
func (p *Pane) Enter() tea.Cmd {
	e, ok := p.Selected()
	if !ok || !e.IsDir() || p.loading {
		return nil
	}
	return p.listFiltered(join(p.dir, e.Name), "") // a directory entered: its filter starts empty
}

// join is the remote path of name inside dir, written as Colab writes
// paths ("content/x"; in the root "", just "content"): never a leading or
// doubled slash.
func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// Up goes to the parent directory (not above the runtime's root).
func (p *Pane) Up() tea.Cmd {
	if p.dir == "" || p.loading {
		return nil
	}
	parent := path.Dir(p.dir)
	if parent == "." {
		parent = ""
	}
	return p.listFiltered(parent, "")
}

// Close ends the pane: the listing and the transfer in flight are
// cancelled (a download keeps its part file), and so is anything started
// after.
func (p *Pane) Close() {
	if p.stop != nil {
		p.stop()
	}
}

// IsNotFound reports whether err says a file is missing (local or remote).
func IsNotFound(err error) bool {
	return errors.Is(err, jupyter.ErrNotFound) || errors.Is(err, jupyter.ErrLocalNotFound)
}
