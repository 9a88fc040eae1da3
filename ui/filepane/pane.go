// Package filepane is the dashboard's files pane for one runtime: browse
// its Jupyter server's tree from content/, enter directories, download the
// selected file, upload a local path, delete. It is a self-contained Bubble
// Tea component: Update never blocks or does I/O; every listing and
// transfer is a tea.Cmd (through api/jupyter) whose message names the pane
// and the request generation it answers, so a late answer for a closed
// pane or an older directory is dropped.
//
// The dashboard opens a Pane as an overlay, routes keys to its methods and
// draws View; transfers report progress with ProgressMsg (at most five a
// second) and end with DoneMsg, which the dashboard shows in the status
// line and the event log.
package filepane

// Why this file is over 400 lines: the files pane is one component (browse, download, upload, delete dialogs) with its own state machine.

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/termtext"
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
	loc     *time.Location // where modification times are shown (nil: Local)

	dir     string
	entries []jupyter.Model // kept from the listing (at most MaxShown; filter.go)
	shown   []jupyter.Model // entries passing filter, sorted: what the cursor moves over
	filter  string          // the filter typed (/)
	// listFilter is the filter the listing kept its entries by; total and
	// matched count the directory's entries and those passing listFilter.
	listFilter     string
	total, matched int
	cursor         int
	offset         int
	gen            int
	loading        bool
	err            string

	xfer *transfer
	req  int // the last transfer's request id

	// ctx is the parent of every listing and transfer; Close ends it.
	ctx  context.Context
	stop context.CancelFunc
}

type transfer struct {
	req         int    // its request id: DoneMsg and ProgressMsg carry it
	op, name    string // "download"/"upload", the file's name
	done, total int64
	start       time.Time
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
	return &Pane{id: nextID.Add(1), runtime: runtime, open: open, now: now, dir: Root, ctx: ctx, stop: stop}
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

// ListedMsg answers a listing.
type ListedMsg struct {
	pane           int64
	gen            int
	dir            string
	filter         string // the filter the entries were kept by
	jc             *jupyter.Client
	entries        []jupyter.Model
	total, matched int
	err            error
}

// ProgressMsg reports a transfer's progress.
type ProgressMsg struct {
	pane        int64
	req         int
	done, total int64
	ch          <-chan tea.Msg
}

// Next waits for the transfer's next message (progress, then its
// DoneMsg). Update returns it for its own pane's progress; for the
// progress of a pane no longer open, the dashboard runs it, so the
// transfer's end still arrives (its outcome is logged).
func (m ProgressMsg) Next() tea.Cmd { return wait(m.ch) }

// DoneMsg ends a download, upload or delete. It names the pane, the
// runtime and the request it answers: Update takes it only when all three
// are the pane's (the transfer in flight), so a late answer never ends
// another transfer or lands on another runtime's pane. Runtime is the
// runtime id ("rt-abc"); Op is "download", "upload" or "delete"; Text is
// a one-line summary ("downloaded model.pt → ./model.pt (1.2 MB)") or,
// with Err, what failed.
type DoneMsg struct {
	pane    int64
	req     int
	jc      *jupyter.Client
	Runtime string
	Op      string
	Text    string
	Err     error
	// Elapsed is how long the transfer or delete took, from its start
	// to its end (wall clock).
	Elapsed time.Duration
	// Name is the file's (or directory's) own name, as the server sent
	// it: sanitize it to show it.
	Name string
}

// Cancelled reports whether the transfer or delete stopped because its
// context ended (the pane was closed, the program quit) rather than
// finishing or failing on its own.
func (d DoneMsg) Cancelled() bool {
	return errors.Is(d.Err, context.Canceled) || errors.Is(d.Err, jupyter.ErrInterrupted)
}

// KeptPart reports whether a cancelled download kept its part file (the
// next download of the same file resumes it).
func (d DoneMsg) KeptPart() bool {
	return d.Op == "download" && errors.Is(d.Err, jupyter.ErrInterrupted)
}

// Init lists content/.
func (p *Pane) Init() tea.Cmd { return p.list(p.dir) }

// Refresh lists the current directory again (with the filter applied when
// it was).
func (p *Pane) Refresh() tea.Cmd { return p.listFiltered(p.dir, p.listFilter) }

func (p *Pane) client(ctx context.Context) (*jupyter.Client, error) {
	if p.jc != nil {
		return p.jc, nil
	}
	return p.open(ctx)
}

// list lists dir, a directory entered: its filter starts empty.
func (p *Pane) list(dir string) tea.Cmd { return p.listFiltered(dir, "") }

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
		if m.dir != p.dir || m.filter != "" {
			p.filter = m.filter // a directory entered starts unfiltered
		}
		if m.dir != p.dir {
			p.cursor = -1 // refilter keeps the cursor's entry only in the same directory
		}
		p.dir, p.entries = m.dir, sortEntries(m.entries)
		p.listFilter, p.total, p.matched = m.filter, m.total, m.matched
		p.refilter()
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
		return p.list(p.dir), true
	}
	return nil, false
}

// errText is a listing error for the pane: a runtime file's error names
// its path as the listing shows names (termtext), not Go-quoted.
func errText(err error) string {
	if je := (*jupyter.Error)(nil); errors.As(err, &je) { // wrapped too
		return termtext.Line(je.Text(termtext.Line))
	}
	return termtext.Line(err.Error())
}

func sortEntries(es []jupyter.Model) []jupyter.Model {
	out := append([]jupyter.Model(nil), es...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].IsDir() != out[j].IsDir() {
			return out[i].IsDir()
		}
		return strings.ToLower(out[i].Name) < strings.ToLower(out[j].Name)
	})
	return out
}

// Selected returns the entry under the cursor.
func (p *Pane) Selected() (jupyter.Model, bool) {
	// While a listing error is shown the entries are not on screen, so
	// nothing is selected (a key must act only on what the user sees).
	if p.err != "" || p.cursor < 0 || p.cursor >= len(p.shown) {
		return jupyter.Model{}, false
	}
	return p.shown[p.cursor], true
}

// Move moves the cursor by n entries (clamped).
func (p *Pane) Move(n int) {
	p.cursor = max(0, min(len(p.shown)-1, p.cursor+n))
}

// Enter opens the selected directory; on a file it does nothing and
// returns nil.
func (p *Pane) Enter() tea.Cmd {
	e, ok := p.Selected()
	if !ok || !e.IsDir() || p.loading {
		return nil
	}
	return p.list(join(p.dir, e.Name))
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
	return p.list(parent)
}

// transferCmd runs fn in the background with progress messages.
func (p *Pane) transferCmd(op, name string, fn func(ctx context.Context, c *jupyter.Client, progress jupyter.Progress) (string, error)) tea.Cmd {
	if p.xfer != nil {
		return nil
	}
	ctx, cancel := context.WithCancel(p.ctx)
	p.req++
	p.xfer = &transfer{req: p.req, op: op, name: name, total: -1, start: p.now()}
	id, req, runtime, jc, open := p.id, p.req, p.runtime, p.jc, p.open
	ch := make(chan tea.Msg, 1)
	go func() {
		defer cancel()
		start := time.Now()
		c := jc
		var err error
		defer func() {
			// A panic in a transfer ends it as an error, not the program.
			if r := recover(); r != nil {
				select {
				case <-ch:
				default:
				}
				ch <- DoneMsg{pane: id, req: req, Runtime: runtime, Op: op, Name: name, Err: fmt.Errorf("internal error in %s: %v", op, r), Elapsed: time.Since(start)}
			}
		}()
		if c == nil {
			c, err = open(ctx)
		}
		text := ""
		if err == nil {
			var last time.Time
			text, err = fn(ctx, c, func(done, total int64) {
				if now := time.Now(); now.Sub(last) >= 200*time.Millisecond {
					last = now
					select {
					case ch <- ProgressMsg{pane: id, req: req, done: done, total: total, ch: ch}:
					default: // the dashboard has not taken the last one yet
					}
				}
			})
		}
		// Drain a progress message not taken yet, so DoneMsg is next.
		select {
		case <-ch:
		default:
		}
		ch <- DoneMsg{pane: id, req: req, jc: c, Runtime: runtime, Op: op, Name: name, Text: text, Err: err, Elapsed: time.Since(start)}
	}()
	return wait(ch)
}

func wait(ch <-chan tea.Msg) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg { return <-ch }
}

// Target is one entry of a pane's runtime, captured when a question
// about it is asked (download to…, delete), so the answer acts on exactly
// what the question named, whatever the listing or the cursor did since.
type Target struct {
	pane int64
	// Runtime is the runtime id ("rt-abc").
	Runtime string
	// Path is the full remote path ("content/sub/data.csv"); for the
	// directory an upload goes into, that directory ("content/sub").
	Path string
	// Name is the entry's own name as the server sent it ("data.csv"); for
	// an upload's directory, "".
	Name string
	// Dir reports whether the entry is a directory.
	Dir bool
}

// Selection returns the entry under the cursor as a Target (ok false when
// nothing is selected, as with Selected).
func (p *Pane) Selection() (Target, bool) {
	e, ok := p.Selected()
	if !ok {
		return Target{}, false
	}
	return Target{pane: p.id, Runtime: p.runtime, Path: join(p.dir, e.Name), Name: e.Name, Dir: e.IsDir()}, true
}

// Here returns the directory shown as a Target: where an upload goes.
func (p *Pane) Here() Target {
	return Target{pane: p.id, Runtime: p.runtime, Path: p.dir, Dir: true}
}

// Owns reports whether t was captured from this pane (same pane, same
// runtime).
func (p *Pane) Owns(t Target) bool { return t.pane == p.id && t.Runtime == p.runtime }

// Download copies the file t to local: a local directory (the file keeps
// its name) or a file path; "" means the current directory (see
// PlanDownload). An existing local file is replaced only with replace
// (the dashboard asks first, from Plan's answer); without it the download
// stops with ErrExists, also when the file appeared since it was asked.
// It returns nil when t is not this pane's file or a transfer is running.
func (p *Pane) Download(t Target, local string, replace bool) tea.Cmd {
	if !p.Owns(t) || t.Dir {
		return nil
	}
	remote, name := t.Path, t.Name
	return p.transferCmd("download", name, func(ctx context.Context, c *jupyter.Client, progress jupyter.Progress) (string, error) {
		plan, err := PlanDownload(t, local)
		if err != nil {
			return "", err
		}
		if plan.Exists && !replace {
			return "", &jupyter.Error{Op: "download", Runtime: t.Runtime, Path: remote, Kind: jupyter.ErrExists,
				Message: "the local file " + plan.Dst + " exists; not replaced"}
		}
		var m jupyter.Model
		if plan.Dir != "" {
			m, err = c.DownloadInto(ctx, remote, plan.Dir, plan.Name, progress)
		} else {
			m, err = c.Download(ctx, remote, plan.Dst, progress)
		}
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("downloaded %s → %s (%s)", termtext.Line(name), termtext.Line(plan.Dst), state.FormatBytes(m.Size)), nil
	})
}

// Upload copies a local file into the directory into (from Here) under
// its own name (see CheckUpload). A remote file of that name is replaced
// only with replace (the dashboard asks first); without it the upload
// stops with ErrExists, also when the file appeared since the listing.
// It returns nil when into is not this pane's, local is empty or a
// transfer is running.
func (p *Pane) Upload(into Target, local string, replace bool) tea.Cmd {
	if local == "" || !p.Owns(into) || !into.Dir {
		return nil
	}
	dir := into.Path
	name := filepath.Base(local)
	return p.transferCmd("upload", name, func(ctx context.Context, c *jupyter.Client, progress jupyter.Progress) (string, error) {
		if _, err := CheckUpload(into, local); err != nil {
			return "", err
		}
		remote := join(dir, name)
		if !replace {
			switch _, err := c.Stat(ctx, remote); {
			case err == nil:
				return "", &jupyter.Error{Op: "upload", Runtime: into.Runtime, Path: remote, Kind: jupyter.ErrExists,
					Message: "not replaced (it appeared since the listing: upload again to be asked)"}
			case !errors.Is(err, jupyter.ErrNotFound) && !errors.Is(err, jupyter.ErrHidden):
				return "", err
			}
		}
		// A file of stat size 0 (/proc) is read to its end, not sent empty.
		_, n, err := c.UploadFile(ctx, local, remote, progress)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("uploaded %s → %s (%s)", termtext.Line(local), termtext.Line(jupyter.Where(c.Runtime(), remote)), state.FormatBytes(n)), nil
	})
}

// Deletable returns nil when t may be deleted, else why not: the rule of
// jupyter.Removable (never /content itself nor a top-level directory),
// the one `colabdash rm` applies.
func Deletable(t Target) error { return jupyter.Removable(t.Runtime, t.Path) }

// Delete removes t (a directory with everything listed in it). The
// dashboard asks for confirmation first, and calls it only while t is
// still the entry under the cursor (see Selection). It returns nil when t
// is not this pane's, Deletable refuses it, or a transfer is running.
func (p *Pane) Delete(t Target) tea.Cmd {
	if !p.Owns(t) || t.Name == "" || Deletable(t) != nil {
		return nil
	}
	remote := t.Path
	return p.transferCmd("delete", t.Name, func(ctx context.Context, c *jupyter.Client, _ jupyter.Progress) (string, error) {
		n := 0
		if err := c.RemoveAll(ctx, remote, func(string) { n++ }); err != nil {
			return "", err
		}
		// A stock Jupyter server keeps them in its trash (field case 62).
		return fmt.Sprintf("deleted %s (%d item(s)); its Jupyter server may keep them in its trash (colabdash rm --purge %s frees it)",
			termtext.Line(jupyter.Where(c.Runtime(), remote)), n, termtext.Line(c.Runtime())), nil
	})
}

// Close ends the pane: the listing and the transfer in flight are
// cancelled (a download keeps its part file), and so is anything started
// after.
func (p *Pane) Close() {
	if p.stop != nil {
		p.stop()
	}
}

// Status is the transfer line for the status bar, "" when idle:
// "↓ model.pt 45% · 54.0 MB / 120.0 MB · 38.2 MB/s".
func (p *Pane) Status() string {
	x := p.xfer
	if x == nil {
		return ""
	}
	arrow := map[string]string{"download": "↓", "upload": "↑", "delete": "✗"}[x.op]
	s := arrow + " " + termtext.Line(x.name)
	if x.op == "delete" {
		return s + " deleting…"
	}
	if x.total > 0 {
		s += fmt.Sprintf(" %d%%", x.done*100/x.total)
	}
	s += " · " + state.FormatBytes(x.done)
	if x.total >= 0 {
		s += " / " + state.FormatBytes(x.total)
	}
	if el := p.now().Sub(x.start).Seconds(); el > 0 && x.done > 0 {
		s += " · " + state.FormatBytes(int64(float64(x.done)/el)) + "/s"
	}
	return s
}

// Err is the last listing error ("" when none).
func (p *Pane) Err() string { return p.err }

// View renders the pane in exactly h lines of at most w cells: a title
// line (runtime:directory), then one line per entry (size, modified,
// name; directories end in "/"), the cursor's line starting with "›" and
// passed through sel.
func (p *Pane) View(w, h int, sel func(string) string) []string {
	if h <= 0 {
		return nil
	}
	lines := make([]string, 0, h)
	title := "FILES · " + jupyter.Where(p.runtime, p.dir)
	if n := p.countText(); n != "" {
		title += " · " + n
	}
	if p.loading {
		title += "  (loading…)"
	}
	lines = append(lines, termtext.Cut(title, w))
	body := h - 1
	switch {
	case p.err != "":
		lines = append(lines, termtext.Cut("  "+p.err, w))
	case !p.loading && len(p.shown) == 0 && p.filter != "":
		lines = append(lines, termtext.Cut("  (no entry matches the filter)", w))
	case !p.loading && len(p.shown) == 0:
		lines = append(lines, termtext.Cut("  (empty; hidden files are not listed)", w))
	}
	if len(lines) == 1 && body > 0 {
		if p.cursor < p.offset {
			p.offset = p.cursor
		}
		if p.cursor >= p.offset+body {
			p.offset = p.cursor - body + 1
		}
		for i := p.offset; i < len(p.shown) && len(lines) < h; i++ {
			e := p.shown[i]
			size := "-"
			if !e.IsDir() && e.Size >= 0 {
				size = state.FormatBytes(e.Size)
			}
			when := "-"
			if !e.LastModified.IsZero() {
				loc := p.loc
				if loc == nil {
					loc = time.Local
				}
				when = e.LastModified.In(loc).Format("2006-01-02 15:04")
			}
			name := termtext.Line(e.Name) // as the status line shows it
			if e.IsDir() {
				name += "/"
			}
			mark := "  "
			if i == p.cursor {
				// The marker shows the cursor without colour or
				// attributes (NO_COLOR), as in the runtimes table.
				mark = "› "
			}
			line := termtext.Cut(fmt.Sprintf("%s%9s  %-16s  %s", mark, size, when, name), w)
			if i == p.cursor && sel != nil {
				line = sel(line)
			}
			lines = append(lines, line)
		}
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return lines[:h]
}

// IsNotFound reports whether err says a file is missing (local or remote).
func IsNotFound(err error) bool {
	return errors.Is(err, jupyter.ErrNotFound) || errors.Is(err, jupyter.ErrLocalNotFound)
}
