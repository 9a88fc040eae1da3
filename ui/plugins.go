package ui

// The config's plugins on the dashboard (ui/plugin runs them): a plugin's
// key, read after the built-in keys of the focused pane's scope, becomes
// an effect in Update (a confirm dialog, or a command); the plugin runs
// in a tea.Cmd (suspending the dashboard in the foreground, or within its
// timeout in the background) and its plugin.DoneMsg is folded here.

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
	"github.com/colabdash/colabdash/ui/plugin"
	"github.com/colabdash/colabdash/ui/termtext"
)

// pluginOutputLines is how many of a background plugin's last output
// lines go to the event log.
const pluginOutputLines = 20

// pluginScope is the plugin scope of the focused pane.
func (m *app) pluginScope() string {
	if m.cx.Focus == common.PanelSessions {
		return config.PluginScopeSessions
	}
	return config.PluginScopeRuntimes
}

// pluginKey is the effect of k when it is a plugin's key in the focused
// pane's scope (ok false otherwise): refused under --readonly when the
// plugin is dangerous, else its confirm dialog or its run.
func (m *app) pluginKey(k tea.KeyMsg, now time.Time) (common.Effect, bool) {
	pk, disabled, ok := m.cx.Keys.PluginMatch(m.pluginScope(), k)
	if !ok {
		return nil, false
	}
	if disabled {
		return common.Say{Text: "read-only mode: " + pk.Binding.Help().Key + " (plugin " + pk.Name + ", dangerous) is disabled", Err: true}, true
	}
	p, ok := m.pluginNamed(pk.Name)
	if !ok {
		return nil, false
	}
	sel, ok := m.pluginSelection(p, now)
	if !ok {
		return nil, true // the status line says why
	}
	return m.confirmPlugin(p, sel, now), true
}

// pluginFromPane is the files pane's plugin key (a common.RunPlugin) on
// its runtime and file.
func (m *app) pluginFromPane(a common.RunPlugin, now time.Time) common.Effect {
	p, ok := m.pluginNamed(a.Name)
	if !ok {
		return nil
	}
	sel := m.selectionOf(m.cx.Snap.Runtime("runtimes/" + a.Runtime))
	sel.Runtime, sel.File = a.Runtime, a.File
	return m.confirmPlugin(p, sel, now)
}

// pluginNamed is the configured plugin called name (false: none).
func (m *app) pluginNamed(name string) (config.Plugin, bool) {
	i := slices.IndexFunc(m.opts.Plugins, func(p config.Plugin) bool { return p.Name == name })
	if i < 0 {
		return config.Plugin{}, false
	}
	return m.opts.Plugins[i], true
}

// selectionOf is what every plugin is given of the account and of rt
// (nil: nothing of it): the endpoint, the profile, rt's URL and token.
func (m *app) selectionOf(rt *state.Runtime) plugin.Selection {
	sel := plugin.Selection{Endpoint: m.opts.Endpoint, Profile: m.cx.Profile}
	if rt != nil && rt.ConnectionInfo != nil {
		sel.URL, sel.Token = rt.ConnectionInfo.URL, rt.ConnectionInfo.Token
	}
	return sel
}

// confirmPlugin is p's run on sel, after a confirm dialog when p asks for
// one.
func (m *app) confirmPlugin(p config.Plugin, sel plugin.Selection, now time.Time) common.Effect {
	run := common.Run{Cmd: m.runPlugin(p, sel, now)}
	if !p.Confirm {
		return run
	}
	d := dialog.New(dialog.Confirm, now, "Run plugin "+p.Name+"?",
		termtext.Cut(p.Command+" "+strings.Join(p.Args, " "), 200)+" · on "+termtext.Cut(sel.Runtime, 63))
	d.OnAnswer = func(_ *common.Context, r dialog.Reply) common.Effect {
		if !r.OK {
			return common.Say{Text: "plugin " + p.Name + " cancelled: nothing run"}
		}
		return run
	}
	return common.Open{Overlay: d}
}

// pluginSelection is what the plugin is given: the selected runtime
// (listed and not gone), and in the sessions scope the selected session.
func (m *app) pluginSelection(p config.Plugin, now time.Time) (plugin.Selection, bool) {
	rt := m.liveSelected(now)
	if rt == nil {
		return plugin.Selection{}, false
	}
	sel := m.selectionOf(rt)
	sel.Runtime = rt.ID()
	if p.Scope == config.PluginScopeSessions {
		s := m.selectedSession()
		if s == "" {
			m.scr.say(now, common.Say{Text: "plugin " + p.Name + ": no session selected", Err: true})
			return plugin.Selection{}, false
		}
		sel.Session = api.LastSegment(s)
	}
	return sel, true
}

// runPlugin is the command that runs p on sel, and says so.
func (m *app) runPlugin(p config.Plugin, sel plugin.Selection, now time.Time) tea.Cmd {
	env := m.opts.Environ
	if env == nil {
		env = os.Environ()
	}
	ctx := m.link.life.ctx
	if p.Background {
		m.scr.say(now, common.Say{Text: "plugin " + p.Name + " running on " + termtext.Cut(sel.Runtime, 63) + "…"})
		return plugin.Background(ctx, p, sel, env)
	}
	return plugin.Foreground(ctx, p, sel, env, m.life.term)
}

// onPluginDone says how a plugin ended and keeps a background plugin's
// last output lines in the event log (shown through the sanitizer and
// the redactor).
func (m *app) onPluginDone(msg plugin.DoneMsg, now time.Time) tea.Cmd {
	tool := "plugin " + msg.Name
	lines := strings.Split(strings.TrimRight(msg.Output, "\n"), "\n")
	if len(lines) > pluginOutputLines {
		lines = lines[len(lines)-pluginOutputLines:]
	}
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			m.scr.logEvent(Event{At: now, Tool: tool, Target: msg.Target, Output: l})
		}
	}
	m.scr.recordEvent(now, tool, msg.Target, 0, msg.Err)
	switch {
	case msg.TimedOut:
		m.scr.say(now, common.Say{Text: tool + ": ended after its timeout (output in the event log)", Err: true})
	case msg.Err != nil:
		m.scr.say(now, common.Say{Text: fmt.Sprintf("%s: %s", tool, common.ErrLine(msg.Err)), Err: true})
	default:
		m.scr.say(now, common.Say{Text: tool + ": done"})
	}
	if msg.Background {
		return nil
	}
	// The terminal may have been resized meanwhile: ask for the size again.
	return tea.WindowSize()
}
