// Package files is the dashboard's files pane (f) as an overlay: the tree
// of one runtime's Jupyter server from content/ (its state machine is
// package pane below), its keys (keymap.ScopeFiles), its filter line, and
// what its questions' answers do. It never starts a call nor changes the
// dashboard itself: it answers with common.Effects, and what it needs of
// the dashboard comes as constructor arguments (the pane, with the Jupyter
// client opener the dashboard gives it) and through Asker (the
// dashboard's dialogs).
package files

import (
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/files/pane"
	"github.com/colabdash/colabdash/ui/termtext"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

// Asker builds the files pane's questions as the dashboard's dialogs, each
// an overlay to open on top of the pane. A dialog answered with OK comes
// back to the pane through Overlay.Answer with the same question and
// target, so the answer acts on what the question named.
type Asker interface {
	// DownloadTo asks where to download the file t (D): a local file or
	// directory, typed.
	DownloadTo(t pane.Target, now time.Time) common.Overlay
	// Upload asks which local file to upload into the directory p shows
	// (u), typed; it checks what is typed against p's listing as it is
	// when asked.
	Upload(p *pane.Pane, now time.Time) common.Overlay
	// Delete asks whether to delete t (x; y only).
	Delete(t pane.Target, now time.Time) common.Overlay
	// ReplaceLocal asks whether the download of t to local may replace
	// the local file plan.Dst (y only).
	ReplaceLocal(t pane.Target, local string, plan pane.DownloadPlan, c *common.Context) common.Overlay
	// ReplaceRemote asks whether the upload of local into the directory
	// t may replace e, the runtime's file of that name (y only).
	ReplaceRemote(t pane.Target, local string, e jupyter.Model, c *common.Context) common.Overlay
}

// Overlay is the files pane of one runtime (f): its tree from content/,
// directories first. Its keys are keymap's ScopeFiles (by default):
//
//	↑/↓ pgup/pgdn g/G   move
//	enter →             open the selected directory
//	backspace ←         the parent directory
//	d                   download the selected file to the current directory
//	D                   download it to a path typed in a dialog
//	u                   upload a local file (path typed) into this directory
//	x delete            delete the selected entry (y-only confirmation)
//	r                   list again
//	/                   filter the entries by name (FilterOverlay)
//	L                   the event log, over the pane (esc comes back)
//	L                   the event log, over the pane (esc comes back)
//	esc f               close (a transfer in flight is cancelled; a
//	                    partial download is kept for the next try)
//
// u and x are off in --readonly. Progress shows in the status line, and
// every transfer's outcome in the status line and the event log. D, u and
// x ask in a dialog of their own on the stack (Asker, with its grace
// period); the answer names the entry asked about (Answer).
type Overlay struct {
	p      *pane.Pane
	ask    Asker
	closed bool // esc, f or Close: its answers find nothing to act on
}

// New returns the overlay showing p (built with pane.New, not yet listed:
// run Init's command); ask builds its questions (nil: the dashboard's
// dialogs, each answered back to this overlay).
func New(p *pane.Pane, ask Asker) *Overlay {
	o := &Overlay{p: p, ask: ask}
	if ask == nil {
		o.ask = dialogs{o}
	}
	return o
}

// Init lists content/.
func (o *Overlay) Init() tea.Cmd { return o.p.Init() }

// Pane is the pane shown: its messages (pane.ListedMsg, ProgressMsg,
// DoneMsg) go to its Update.
func (o *Overlay) Pane() *pane.Pane { return o.p }

// Close ends the pane (its listing and transfer stop) when the dashboard
// drops it without a key (a profile switch); an answer still on its way
// then finds nothing to act on.
func (o *Overlay) Close() {
	o.closed = true
	o.p.Close()
}

// Name says what the overlay is.
func (o *Overlay) Name() string { return "files pane" }

// Fits: the pane fits every screen the dashboard lays out.
func (o *Overlay) Fits(*common.Context) bool { return true }

// Keys are the footer's keys while the pane is on top.
func (o *Overlay) Keys(c *common.Context) []key.Binding {
	k := &c.Keys.FilesPane
	// The way out and the help first, then the transfers: a narrow
	// footer cuts from the end, and ? lists every key. Each key by its
	// shortest name and a short word, so all fit in 100 columns.
	out := []key.Binding{common.HelpKey(common.KeysOf(k.Back), "close"), common.HelpKey(shortKey(k.Help), "help")}
	for _, b := range []struct {
		b    key.Binding
		word string
	}{{k.Download, "download"}, {k.DownloadTo, "save as…"}, {k.Upload, "upload"}, {k.Delete, "delete"},
		{k.Open, "open"}, {k.Parent, "up"}, {k.Refresh, "refresh"}} {
		if b.b.Enabled() { // upload and delete are off in --readonly
			out = append(out, common.HelpKey(shortKey(b.b), b.word))
		}
	}
	return append(out, c.Keys.PluginBindings("files")...)
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

// Draw paints the pane over the dashboard's body and its transfer's
// progress in the status line.
func (o *Overlay) Draw(c *common.Context, f *frame.Frame) {
	body := o.p.View(f.W, max(1, f.BodyRows()), func(s string) string { return c.Styles.Selected.Render(s) })
	hint := "  (" + c.Keys.FilesPane.Back.Help().Key + " to close)"
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
func (o *Overlay) busyText() string {
	op, name, _ := o.p.Pending()
	return "one transfer at a time: the " + op + " of " + termtext.Line(name) + " is still running"
}
