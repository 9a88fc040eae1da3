// Package profile is the profile picker overlay (P): the profiles the
// configuration names, the active one marked, one chosen with enter. The
// switch itself (connecting, replacing the Service) is the dashboard's:
// the picker only answers common.SwitchProfile.
package profile

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/termtext"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

// Overlay is the profile picker (P): ↑/↓ and g/G choose, enter switches, esc, P
// or q close it, ctrl+c quits. It lists c.Profiles and marks c.Profile.
// It implements common.Overlay.
type Overlay struct {
	cursor int // index into c.Profiles
}

// New returns the picker with the cursor on the active profile
// (c.Profile), or on the first when none of c.Profiles is active.
func New(c *common.Context) *Overlay {
	p := &Overlay{}
	for i, name := range c.Profiles {
		if name == c.Profile {
			p.cursor = i
		}
	}
	return p
}

// HandleKey moves the cursor (↑/↓ within the list, g/G to its first or
// last profile), switches to the
// profile under it (enter: common.SwitchProfile), closes (esc, P, q:
// common.Close, saying the switch was cancelled) or quits (ctrl+c: common.Quit); every other key does
// nothing (nil).
func (p *Overlay) HandleKey(k tea.KeyMsg, c *common.Context) common.Effect {
	keys := &c.Keys.ProfilePicker
	switch {
	case k.Type == tea.KeyCtrlC:
		return common.Quit{}
	case key.Matches(k, keys.Back), key.Matches(k, keys.Profile), key.Matches(k, keys.Quit):
		return common.Close{Text: "profile switch cancelled: still on " + termtext.Line(c.Profile)}
	case key.Matches(k, keys.Up):
		p.cursor = max(p.cursor-1, 0) // Down keeps the cursor in the list: up needs only the top
	case key.Matches(k, keys.Down):
		p.cursor = frame.Clamp(p.cursor+1, 0, len(c.Profiles)-1)
	case key.Matches(k, keys.Top):
		p.cursor = 0
	case key.Matches(k, keys.Bottom):
		p.cursor = max(len(c.Profiles)-1, 0)
	case k.Type == tea.KeyEnter:
		if p.cursor >= len(c.Profiles) {
			return common.Close{} // nothing to switch to
		}
		return common.SwitchProfile{Name: c.Profiles[p.cursor]}
	}
	return nil
}

// Draw replaces the frame's body with the PROFILES title and one line
// per profile, the cursor's selected, the active one "(active)".
func (p *Overlay) Draw(c *common.Context, f *frame.Frame) {
	out := []string{c.Styles.PanelFocus.Render("PROFILES") + c.Styles.Dim.Render("  (enter switch · esc cancel)")}
	for i, name := range c.Profiles {
		line := "  "
		if i == p.cursor {
			line = "› "
		}
		line += termtext.Line(name)
		if name == c.Profile {
			line += " (active)"
		}
		if i == p.cursor {
			line = c.Styles.Selected.Render(line)
		}
		out = append(out, line)
	}
	f.SetBody(out)
}

// Fits is always true: the list is cut to the body on a short screen.
func (p *Overlay) Fits(*common.Context) bool { return true }

// Keys are the footer's words while the picker is open: move, switch,
// cancel, quit, with the keys in effect.
func (p *Overlay) Keys(c *common.Context) []key.Binding {
	k := &c.Keys.ProfilePicker
	return []key.Binding{common.HelpKey(common.KeysOf(k.Up, k.Down), "move"), common.HelpKey("enter", "switch"),
		common.HelpKey(common.KeysOf(k.Back, k.Profile, k.Quit), "cancel"), common.HelpKey("ctrl+c", "quit")}
}

// Name is "profile picker".
func (p *Overlay) Name() string { return "profile picker" }
