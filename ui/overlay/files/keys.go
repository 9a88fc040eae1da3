package files

import (
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/files/pane"
	"github.com/colabdash/colabdash/ui/termtext"
)

// HandleKey takes every key while the pane is on top; it matches only the
// bindings of keymap.ScopeFiles. A key that does nothing says why in the
// status line (Say with Pane set: the message goes when the pane closes).
func (o *Overlay) HandleKey(k tea.KeyMsg, c *common.Context) common.Effect {
	now := c.Now()
	keys := &c.Keys.FilesPane
	cmd := func(cmd tea.Cmd) common.Effect { return common.Run{Cmd: cmd} }
	switch {
	case key.Matches(k, keys.Back) && o.p.Filter() != "":
		// esc clears a kept filter first, as it does on the dashboard;
		// a directory listed with the filter is listed again whole.
		o.p.SetFilter("")
		return cmd(o.p.ApplyFilter())
	case key.Matches(k, keys.Back), key.Matches(k, keys.Files):
		o.closed = true
		o.p.Close()
		if op, name, busy := o.p.Pending(); busy {
			// Whether it stopped or finished first, its answer says
			// (Closed.Done).
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
	case key.Matches(k, keys.Events):
		// The event log opens over the pane (esc comes back to it): a
		// long error cut in the status line says "L: in full".
		return common.Do{Op: common.OpEvents}
	case o.move(k, keys, c.Layout.H):
	case key.Matches(k, keys.Open):
		return cmd(o.p.Enter())
	case key.Matches(k, keys.Parent):
		return cmd(o.p.Up())
	case key.Matches(k, keys.Refresh):
		return cmd(o.p.Refresh())
	case key.Matches(k, keys.Filter):
		return common.Open{Overlay: NewFilter(o.p)}
	case key.Matches(k, keys.Download), key.Matches(k, keys.DownloadTo):
		return o.download(k, keys, now)
	case key.Matches(k, keys.Upload), key.Matches(k, keys.Delete):
		return o.uploadOrDelete(k, keys, now)
	default:
		if b, ok := keys.DisabledMatch(k); ok {
			return common.Say{Pane: true, Text: "read-only mode: " + b.Help().Key + " (" + b.Help().Desc + ") is disabled", Err: true}
		}
		return o.pluginKey(k, c)
	}
	return nil
}

// pluginKey is the effect of k when it is a files-scope plugin's key:
// the plugin run on the selected entry, or why not.
func (o *Overlay) pluginKey(k tea.KeyMsg, c *common.Context) common.Effect {
	pk, disabled, ok := c.Keys.PluginMatch("files", k)
	switch {
	case !ok:
		return nil
	case disabled:
		return common.Say{Pane: true, Text: "read-only mode: " + pk.Binding.Help().Key + " (plugin " + pk.Name + ", dangerous) is disabled", Err: true}
	}
	m, ok := o.p.Selected()
	if !ok {
		return common.Say{Pane: true, Text: "plugin " + pk.Name + ": no file selected", Err: true}
	}
	return common.RunPlugin{Name: pk.Name, Runtime: o.p.Runtime(), File: "/" + strings.TrimPrefix(m.Path, "/")}
}

// move moves the cursor for a movement key (up, down, a page either way,
// top, bottom; a page is the screen's height h less the pane's frame) and
// reports whether k was one.
func (o *Overlay) move(k tea.KeyMsg, keys *keymap.Files, h int) bool {
	page := max(1, h-6)
	for _, m := range []struct {
		b  key.Binding
		by int
	}{{keys.Up, -1}, {keys.Down, 1}, {keys.PageUp, -page}, {keys.PageDown, page}, {keys.Top, -1 << 30}, {keys.Bottom, 1 << 30}} {
		if key.Matches(k, m.b) {
			o.p.Move(m.by)
			return true
		}
	}
	return false
}

// download is d (into the current directory, asking before replacing a
// file) and D (to a local name typed): only a file, and never while a
// transfer runs.
func (o *Overlay) download(k tea.KeyMsg, keys *keymap.Files, now time.Time) common.Effect {
	t, ok := o.p.Selection()
	switch {
	case !ok || t.Dir:
		return common.Say{Pane: true, Text: "select a file to download (" + keys.Open.Help().Key + " opens a directory; colabdash cp -r downloads one)", Err: true}
	case o.p.Busy():
		return common.Say{Pane: true, Text: o.busyText(), Err: true}
	case key.Matches(k, keys.Download):
		if err := jupyter.LocalName(t.Name); err != nil {
			// The name would become a local file name as it is.
			return common.Say{Pane: true, Err: true, Text: "not downloading " + termtext.Line(t.Name) + ": its name " +
				err.Error() + " (" + keys.DownloadTo.Help().Key + ": type a local name)"}
		}
		// Where it lands first: an existing file is asked about.
		return common.Run{Cmd: o.p.Plan(t, ".")}
	}
	return common.Open{Overlay: o.ask.DownloadTo(t, now)}
}

// uploadOrDelete is u (the upload dialog) and the delete key (the
// question, for what may be deleted): never while a transfer runs.
func (o *Overlay) uploadOrDelete(k tea.KeyMsg, keys *keymap.Files, now time.Time) common.Effect {
	if o.p.Busy() {
		return common.Say{Pane: true, Text: o.busyText(), Err: true}
	}
	if key.Matches(k, keys.Upload) {
		return common.Open{Overlay: o.ask.Upload(o.p, now)}
	}
	t, ok := o.p.Selection()
	if !ok {
		return nil
	}
	if pane.Deletable(t) != nil {
		// Not even offered: the rule `colabdash rm` applies.
		return common.Say{Pane: true, Err: true, Text: "not deleting " + termtext.Line("/"+t.Path) +
			": colabdash never removes /content itself or a top-level directory"}
	}
	return common.Open{Overlay: o.ask.Delete(t, now)}
}
