package pane

// Downloads, uploads and deletes: one at a time, in the background, with
// progress messages.

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/charmbracelet/bubbles/progress"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"

	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/termtext"
)

type transfer struct {
	req         int    // its request id: DoneMsg and ProgressMsg carry it
	op, name    string // "download"/"upload", the file's name
	done, total int64
	start       time.Time
}

// transferCmd runs fn in the background with progress messages.
func (p *Pane) transferCmd(op, name string, fn func(ctx context.Context, c *jupyter.Client, progress jupyter.Progress) (string, error)) tea.Cmd {
	if p.xfer != nil {
		return nil
	}
	ctx, cancel := context.WithCancel(p.ctx)
	p.req++
	p.xfer = &transfer{req: p.req, op: op, name: name, total: -1, start: p.now()}
	id, req, runtime, jc, open, clock := p.id, p.req, p.runtime, p.jc, p.open, p.wall
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
			th := throttle{clock: clock}
			text, err = fn(ctx, c, func(done, total int64) {
				if th.due() {
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

// progressEvery is the least time between two progress messages of one
// transfer: however small its chunks, at most five a second reach the
// dashboard, which redraws for each.
const progressEvery = 200 * time.Millisecond

// throttle lets a transfer's progress through at most once every
// progressEvery of clock (the first at once).
type throttle struct {
	clock func() time.Time
	last  time.Time
}

// due reports whether progress may be sent now, and if so counts it sent.
func (t *throttle) due() bool {
	now := t.clock()
	if !t.last.IsZero() && now.Sub(t.last) < progressEvery {
		return false
	}
	t.last = now
	return true
}

func wait(ch <-chan tea.Msg) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg { return <-ch }
}

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
		// Where it landed, whole: "." means nothing once the pane closed.
		dst := plan.Dst
		if abs, err := filepath.Abs(dst); err == nil {
			dst = abs
		}
		return fmt.Sprintf("downloaded %s → %s (%s)", termtext.Line(name), termtext.Line(dst), state.FormatBytes(m.Size)), nil
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

// Delete removes t: a file, a symbolic link (the link itself), or a
// directory with everything in it, in the one DELETE jupyter.RemoveAll
// sends, which never reaches through a link; a server that deletes only
// empty directories makes it fail with nothing removed. The dashboard
// asks for confirmation first, and calls it only while t is still the
// entry under the cursor (see Selection). It returns nil when t is not
// this pane's, Deletable refuses it, or a transfer is running.
func (p *Pane) Delete(t Target) tea.Cmd {
	if !p.Owns(t) || t.Name == "" || Deletable(t) != nil {
		return nil
	}
	remote := t.Path
	return p.transferCmd("delete", t.Name, func(ctx context.Context, c *jupyter.Client, progress jupyter.Progress) (string, error) {
		if err := c.RemoveAll(ctx, remote, func(string) { progress(1, 1) }); err != nil {
			return "", err
		}
		// A stock Jupyter server keeps it in its trash.
		return fmt.Sprintf("deleted %s; its Jupyter server may keep it in its trash (%s frees it)",
			termtext.Line(jupyter.Where(c.Runtime(), remote)), PurgeHint(c.Runtime())), nil
	})
}

// barWidth is the transfer bar's width in cells.
const barWidth = 20

// bar draws the transfer's share done as plain cells (no colour: the
// status line is drawn under NO_COLOR too): "█████░░░░░".
var bar = progress.New(progress.WithWidth(barWidth), progress.WithoutPercentage(), progress.WithColorProfile(termenv.Ascii),
	progress.WithFillCharacters('█', '░'))

// Status is the transfer line for the status bar, "" when idle: the
// direction, the name, a bar and the percentage when the size is known,
// the bytes so far (of the size) and the rate, "↓ model.pt
// █████████░░░░░░░░░░░ 45% · 54.0 MB / 120.0 MB · 38.2 MB/s"; a delete
// counts the entries removed ("✗ runs deleting… 12 removed").
func (p *Pane) Status() string {
	x := p.xfer
	if x == nil {
		return ""
	}
	arrow := map[string]string{"download": "↓", "upload": "↑", "delete": "✗"}[x.op]
	s := arrow + " " + termtext.Line(x.name)
	if x.op == "delete" {
		s += " deleting…"
		if x.done > 0 {
			s += fmt.Sprintf(" %d removed", x.done)
		}
		return s
	}
	if x.total > 0 {
		s += " " + bar.ViewAs(min(float64(x.done)/float64(x.total), 1)) + fmt.Sprintf(" %d%%", x.done*100/x.total)
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

// PurgeHint is the command that empties runtime's trash, for a hint: with
// the id only when it passes state.PasteID (the rule for every id printed
// in a command or hint), else in words.
func PurgeHint(runtime string) string {
	if state.PasteID(runtime) {
		return "colabdash rm --purge " + runtime
	}
	return "colabdash rm --purge with this runtime"
}
