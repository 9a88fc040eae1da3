package ui

// The files pane (f) and the console's kernel interrupt: both reach the
// runtime's Jupyter server through its proxy (api/jupyter). The pane
// itself is ui/filepane; this file makes it an overlay.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/filepane"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
	"github.com/colabdash/colabdash/ui/termtext"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

// filesOverlay is the files pane of one runtime (f): its tree from
// content/, directories first. Its keys are keymap's ScopeFiles (by
// default):
//
//	↑/↓ pgup/pgdn g/G   move
//	enter →             open the selected directory
//	backspace ←         the parent directory
//	d                   download the selected file to the current directory
//	D                   download it to a path typed in a dialog
//	u                   upload a local file (path typed) into this directory
//	x delete            delete the selected entry (y-only confirmation)
//	r                   list again
//	/                   filter the entries by name (files_filter.go)
//	esc f               close (a transfer in flight is cancelled; a
//	                    partial download is kept for the next try)
//
// u and x are off in --readonly. Progress shows in the status line, and
// every transfer's outcome in the status line and the event log. D, u and
// x ask in a dialog of their own on the stack (with its grace period);
// the dialog's answer holds the entry asked about (answerFiles).
type filesOverlay struct {
	p *filepane.Pane
}

func (o *filesOverlay) Name() string { return "files pane" }

func (o *filesOverlay) Fits(*common.Context) bool { return true }

func (o *filesOverlay) Keys(c *common.Context) []key.Binding {
	k := c.Keys
	// The way out and the help first, then the transfers: a narrow
	// footer cuts from the end, and ? lists every key. Each key by its
	// shortest name and a short word, so all fit in 100 columns.
	out := []key.Binding{common.HelpKey(common.KeysOf(k.Back), "close"), common.HelpKey(shortKey(k.Help), "help")}
	for _, b := range []struct {
		b    key.Binding
		word string
	}{{k.FilesDownload, "download"}, {k.FilesDownloadTo, "save as…"}, {k.FilesUpload, "upload"}, {k.FilesDelete, "delete"},
		{k.FilesOpen, "open"}, {k.FilesParent, "up"}, {k.Refresh, "refresh"}} {
		if b.b.Enabled() { // upload and delete are off in --readonly
			out = append(out, common.HelpKey(shortKey(b.b), b.word))
		}
	}
	return out
}

// shortKey is b's first key as the help writes it, or when that is
// longer than "enter" the shortest of its keys ("backspace/←" → "←").
func shortKey(b key.Binding) string {
	best := ""
	for _, k := range strings.Split(b.Help().Key, "/") {
		switch {
		case k == "":
		case best == "":
			best = k
		case termtext.Width(best) > len("enter") && termtext.Width(k) < termtext.Width(best):
			best = k
		}
	}
	if best == "" {
		return b.Help().Key // "/" itself
	}
	return best
}

func (o *filesOverlay) Draw(c *common.Context, f *frame.Frame) {
	body := o.p.View(f.W, max(1, f.BodyRows()), func(s string) string { return c.Styles.Selected.Render(s) })
	hint := "  (" + c.Keys.Back.Help().Key + " to close)"
	title := body[0]
	body[0] = c.Styles.PanelFocus.Render(title)
	if termtext.Width(title)+termtext.Width(hint) <= f.W {
		body[0] += c.Styles.Dim.Render(hint)
	}
	f.SetBody(body)
	if s := o.p.Status(); s != "" {
		// The progress, and after it the message of a key pressed
		// meanwhile (why it did nothing), so neither hides the other.
		s = termtext.Cut(s, f.W)
		if c.Status.Shown(c.Now()) {
			if room := f.W - termtext.Width(s) - 3; room >= 10 {
				s += " · " + common.StatusText(c, room)
			}
		}
		f.SetStatus(s)
	}
}

// busyText says why a transfer key does nothing while one runs.
func (o *filesOverlay) busyText() string {
	op, name, _ := o.p.Pending()
	return "one transfer at a time: the " + op + " of " + termtext.Line(name) + " is still running"
}

func (o *filesOverlay) HandleKey(k tea.KeyMsg, c *common.Context) common.Effect {
	now := c.Now()
	keys := c.Keys
	cmd := func(cmd tea.Cmd) common.Effect { return common.Run{Cmd: cmd} }
	switch {
	case key.Matches(k, keys.Back), key.Matches(k, keys.Files):
		o.p.Close()
		if op, name, busy := o.p.Pending(); busy {
			// Whether it stopped or finished first, its answer says
			// (closedFilesDone).
			return common.Close{Text: "files pane closed: stopping the " + op + " of " + termtext.Line(name) + "…"}
		}
		return common.Close{}
	case key.Matches(k, keys.Quit):
		return common.Quit{}
	case key.Matches(k, keys.Help):
		return common.Help{First: keymap.ScopeFiles} // the pane's keys first
	case key.Matches(k, keys.Profile):
		// The picker opens over the pane: esc comes back to it; a
		// switch closes it (and stops its transfer, as the picker says).
		return common.Do{Op: common.OpProfiles}
	case key.Matches(k, keys.Up):
		o.p.Move(-1)
	case key.Matches(k, keys.Down):
		o.p.Move(1)
	case key.Matches(k, keys.PageUp):
		o.p.Move(-max(1, c.Layout.H-6))
	case key.Matches(k, keys.PageDown):
		o.p.Move(max(1, c.Layout.H-6))
	case key.Matches(k, keys.Top):
		o.p.Move(-1 << 30)
	case key.Matches(k, keys.Bottom):
		o.p.Move(1 << 30)
	case key.Matches(k, keys.FilesOpen):
		return cmd(o.p.Enter())
	case key.Matches(k, keys.FilesParent):
		return cmd(o.p.Up())
	case key.Matches(k, keys.Refresh):
		return cmd(o.p.Refresh())
	case key.Matches(k, keys.Filter):
		return common.Open{Overlay: newFilesFilterOverlay(o.p)}
	case key.Matches(k, keys.FilesDownload), key.Matches(k, keys.FilesDownloadTo):
		t, ok := o.p.Selection()
		switch {
		case !ok || t.Dir:
			return common.Say{Pane: true, Text: "select a file to download (" + keys.FilesOpen.Help().Key + " opens a directory)", Err: true}
		case o.p.Busy():
			return common.Say{Pane: true, Text: o.busyText(), Err: true}
		case key.Matches(k, keys.FilesDownload):
			if err := jupyter.LocalName(t.Name); err != nil {
				// The name would become a local file name as it is.
				return common.Say{Pane: true, Err: true, Text: "not downloading " + termtext.Line(t.Name) + ": its name " +
					err.Error() + " (" + keys.FilesDownloadTo.Help().Key + ": type a local name)"}
			}
			// Where it lands first: an existing file is asked about.
			return cmd(o.p.Plan(t, "."))
		}
		return common.Open{Overlay: downloadToDialog(t, now)}
	case key.Matches(k, keys.FilesUpload), key.Matches(k, keys.FilesDelete):
		if o.p.Busy() {
			return common.Say{Pane: true, Text: o.busyText(), Err: true}
		}
		if key.Matches(k, keys.FilesUpload) {
			return common.Open{Overlay: uploadDialog(o.p, now)}
		}
		t, ok := o.p.Selection()
		if !ok {
			return nil
		}
		if filepane.Deletable(t) != nil {
			// Not even offered: the rule `colabdash rm` applies.
			return common.Say{Pane: true, Err: true, Text: "not deleting " + termtext.Line("/"+t.Path) +
				": colabdash never removes /content itself or a top-level directory"}
		}
		what := "file"
		if t.Dir {
			what = "directory and everything listed in it"
		}
		d := dialog.New(dialog.Confirm, now, "Delete "+t.Name+"?",
			"The "+what+" "+jupyter.Where(t.Runtime, t.Path)+" is removed from the runtime.", "This cannot be undone.")
		d.OnAnswer = filesAnswer(common.FilesDelete, t, "", false, nil)
		return common.Open{Overlay: d}
	default:
		if b, ok := keys.DisabledMatchIn(keymap.ScopeFiles, k); ok {
			return common.Say{Pane: true, Text: "read-only mode: " + b.Help().Key + " (" + b.Help().Desc + ") is disabled", Err: true}
		}
	}
	return nil
}

// answerFiles acts on a files-pane question answered with ok: on a.Target,
// the target captured when it opened, never on what the cursor or the
// listing point at now, and only in the pane it was asked in.
func (m *Model) answerFiles(a common.FilesAnswer, now time.Time) tea.Cmd {
	t := a.Target
	o, open := find[*filesOverlay](m)
	if !open || !o.p.Owns(t) {
		m.setStatus(now, "the files pane of "+t.Runtime+" was closed: nothing done", true)
		return nil
	}
	if o.p.Busy() {
		m.setStatus(now, "a transfer is already running", true)
		return nil
	}
	switch a.Op {
	case common.FilesDownloadTo:
		// Where it lands first: an existing file is asked about.
		return o.p.Plan(t, expandTilde(a.Local))
	case common.FilesReplaceLocal:
		return o.p.Download(t, a.Local, true)
	case common.FilesUpload:
		return m.startUpload(o, t, expandTilde(a.Local), now)
	case common.FilesReplaceRemote:
		return o.p.Upload(t, a.Local, true)
	case common.FilesDelete:
		// A delete goes ahead only while the entry it named is still the
		// one on screen under the cursor: the same full path and kind.
		if cur, ok := o.p.Selection(); !ok || cur.Path != t.Path || cur.Dir != t.Dir {
			m.setStatus(now, jupyter.Where(t.Runtime, t.Path)+" is no longer the selected entry: nothing deleted", true)
			return nil
		}
		return o.p.Delete(t)
	}
	return nil
}

func expandTilde(p string) string {
	if len(p) > 1 && p[:2] == "~/" {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[2:])
		}
	}
	return p
}

// openFiles is f: the files pane of the selected runtime, through its
// current connectionInfo (renewed with get_runtime when a transfer
// outlives it).
func (m *Model) openFiles(now time.Time) tea.Cmd {
	sel := m.reachableSelection(now, "its files cannot be reached")
	if sel == nil {
		return nil
	}
	// Under m.ctx: quitting ends its calls; a profile switch closes it.
	p := filepane.New(m.ctx, sel.ID(), m.jupyterOpener(sel.Name, *sel.ConnectionInfo), m.cx.Now)
	p.SetLocation(m.cx.Location)
	m.push(&filesOverlay{p: p})
	return p.Init()
}

// reachableSelection is the selected runtime when its Jupyter server can
// be reached (listed, not gone, with a connectionInfo URL); otherwise it
// says why on the status line (unreachable ends the sentence: "its files
// cannot be reached") and returns nil.
func (m *Model) reachableSelection(now time.Time, unreachable string) *state.Runtime {
	sel := m.cx.Snap.Runtime(m.selected)
	switch {
	case sel == nil:
		m.setStatus(now, "no runtime selected", true)
	case sel.Gone():
		m.setStatus(now, m.goneText(sel, now), true)
	case sel.ConnectionInfo == nil || sel.ConnectionInfo.URL == "":
		m.setStatus(now, "runtime "+sel.ID()+" has no connectionInfo yet: "+unreachable, true)
	default:
		return sel
	}
	return nil
}

// jupyterOpener builds the Jupyter client of runtime name from ci; the
// token is renewed through get_runtime when needed.
func (m *Model) jupyterOpener(name string, ci api.ConnectionInfo) filepane.Opener {
	svc := m.svc
	return func(ctx context.Context) (*jupyter.Client, error) {
		if svc == nil {
			return nil, errNoService
		}
		return jupyter.New(jupyter.Options{Runtime: name, Info: ci, Now: m.opts.Now,
			Renew: func(ctx context.Context) (api.ConnectionInfo, error) {
				rt, err := svc.GetRuntime(ctx, name)
				if err != nil {
					return api.ConnectionInfo{}, err
				}
				if rt.ConnectionInfo == nil {
					return api.ConnectionInfo{}, errors.New("get_runtime returned no connectionInfo")
				}
				return *rt.ConnectionInfo, nil
			}})
	}
}

// onFilesMsg hands a files-pane message to the open pane. A finished
// transfer is logged against its own runtime whatever pane is open now,
// and reaches the status line only when the open pane took it: the answer
// of a closed pane, another runtime's or an older request's never speaks
// for the pane on screen.
func (m *Model) onFilesMsg(msg tea.Msg, now time.Time) tea.Cmd {
	var cmd tea.Cmd
	mine := false
	if o, ok := find[*filesOverlay](m); ok {
		cmd, mine = o.p.Update(msg)
	}
	if pm, ok := msg.(filepane.PlanMsg); ok {
		return m.onFilesPlan(pm, now)
	}
	if pm, ok := msg.(filepane.ProgressMsg); ok && !mine {
		// A closed pane's transfer: wait on for its end all the same.
		return pm.Next()
	}
	if d, isDone := msg.(filepane.DoneMsg); isDone {
		m.recordEvent(now, "files "+d.Op, "runtimes/"+d.Runtime, d.Elapsed, d.Err)
		switch {
		case mine && d.Err != nil:
			m.setStatus(now, d.Op+" failed: "+errLine(d.Err), true)
		case mine:
			m.setStatus(now, d.Text, false)
		default:
			m.closedFilesDone(d, now)
		}
	}
	return cmd
}

// maxFilesClosed bounds Model.filesClosed (the oldest is forgotten).
const maxFilesClosed = 4

// closingFiles notes a files pane closed while its transfer runs: its
// answer will say how it ended (closedFilesDone).
func (m *Model) closingFiles(o *filesOverlay) {
	if !o.p.Busy() {
		return
	}
	// Copy on write: an older copy of the Model keeps its own list.
	l := append([]*filepane.Pane(nil), m.filesClosed[max(0, len(m.filesClosed)-maxFilesClosed+1):]...)
	m.filesClosed = append(l, o.p)
}

// closedFilesDone says in the status line how the transfer of a pane
// closed while it ran really ended: cancelled (and what is left of it),
// finished after all, or failed. With a files pane open it says nothing
// there (it would speak for that pane); the event log has it.
func (m *Model) closedFilesDone(d filepane.DoneMsg, now time.Time) {
	i := slices.IndexFunc(m.filesClosed, func(p *filepane.Pane) bool { return p.Answers(d) })
	if i < 0 {
		return
	}
	m.filesClosed = slices.Delete(slices.Clone(m.filesClosed), i, i+1)
	if _, open := find[*filesOverlay](m); open {
		return
	}
	what := d.Op + " of " + termtext.Line(d.Name) + " on " + d.Runtime
	switch {
	case d.Err == nil:
		m.setStatus(now, "the "+what+" finished before its pane closed: "+d.Text, false)
	case !d.Cancelled():
		m.setStatus(now, what+" failed: "+errLine(d.Err), true)
	case d.KeptPart():
		m.setStatus(now, what+" cancelled: the partial download is kept; downloading it again resumes", false)
	case d.Op == "download":
		m.setStatus(now, what+" cancelled before anything was written", false)
	case d.Op == "upload":
		m.setStatus(now, what+" cancelled: the runtime's files are unchanged", false)
	default:
		m.setStatus(now, what+" cancelled: entries removed before it stopped are gone", false)
	}
}

// interruptDoneMsg answers a kernel interrupt through the proxy.
type interruptDoneMsg struct {
	session, kernel string
	latency         time.Duration
	err             error
}

// interruptOrStop is ctrl+c while console code runs: interrupt the
// session's kernel through the runtime proxy (/api/sessions → kernel →
// /api/kernels/{id}/interrupt); when that cannot be done, offer to stop
// the code by closing the session, as before. The status line says which.
func (m *Model) interruptOrStop(now time.Time) tea.Cmd {
	p := m.ax.exec.console
	if p == nil {
		return nil
	}
	r := m.ax.exec.running(p.session)
	if r == nil {
		return nil
	}
	rt := m.cx.Snap.Runtime(p.runtime)
	if rt == nil || rt.ConnectionInfo == nil || rt.ConnectionInfo.URL == "" || m.svc == nil {
		m.askStop(r.session, now)
		return nil
	}
	session := r.session
	open := m.jupyterOpener(rt.Name, *rt.ConnectionInfo)
	m.setStatus(now, "interrupting the kernel of session "+api.LastSegment(session)+" through the runtime proxy…", false)
	start := time.Now()
	return guard(callSpec{what: "kernel interrupt", svc: m.svc, parent: m.ctx, timeout: 30 * time.Second, redact: m.cx.Redact},
		func(ctx context.Context, _ api.Service) tea.Msg {
			c, err := open(ctx)
			if err != nil {
				return interruptDoneMsg{session: session, err: err}
			}
			k, err := c.InterruptSession(ctx, session)
			return interruptDoneMsg{session: session, kernel: k, latency: time.Since(start), err: err}
		},
		func(err error) tea.Msg { return interruptDoneMsg{session: session, err: err} })
}

func (m *Model) onInterruptDone(msg interruptDoneMsg, now time.Time) tea.Cmd {
	m.recordEvent(now, "kernel interrupt", msg.session, msg.latency, msg.err)
	id := api.LastSegment(msg.session)
	if msg.err == nil {
		m.setStatus(now, "interrupted the kernel of session "+id+" through the runtime proxy (the run ends with KeyboardInterrupt; the session and its state stay)", false)
		return nil
	}
	m.setStatus(now, "could not interrupt session "+id+" through the runtime proxy ("+errLine(msg.err)+"): stopping it means closing the session", true)
	if m.ax.exec.running(msg.session) != nil {
		// Asked from the console: the offer opens over it.
		m.openFromAnswer(m.ax.exec.console, "the offer to stop the code on session "+id, func(m *Model, now time.Time) bool {
			return m.askStop(msg.session, now)
		})
	}
	return nil
}
