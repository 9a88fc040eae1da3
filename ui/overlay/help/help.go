// Package help is the full help overlay (?): every key group of the key
// map in effect, laid out in as many columns as the screen is wide, and
// scrolled when taller than the screen.
package help

import (
	"slices"
	"strings"

	bhelp "github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/termtext"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

// Overlay is the full help (?): every key group, scrolled when taller
// than the screen. Only its own keys act while it is open: ↑/↓,
// pgup/pgdn and g/G scroll, ? and esc close it, q quits. It implements
// common.Overlay.
type Overlay struct {
	offset int // first line of the full help shown
	// first is the scope whose keys come first (keymap.ScopeFiles from
	// the files pane); "" keeps the usual order.
	first string
}

// New returns the help scrolled to its top, with the key group of scope
// first (a keymap.Scope* name: the layer it is opened from; "" keeps the
// dashboard's order).
func New(first string) *Overlay { return &Overlay{first: first} }

// Offset is the first line of the full help shown (0: the top).
func (h *Overlay) Offset() int { return h.offset }

// HandleKey scrolls (↑/↓ a line, pgup/pgdn a page of Rows-1 lines, g/G
// the top or the last page, never past the last page), closes (? or esc: common.Close) or quits
// (common.Quit); every other key does nothing (nil).
func (h *Overlay) HandleKey(k tea.KeyMsg, c *common.Context) common.Effect {
	keys := &c.Keys.HelpView
	page := max(Rows(c.Layout)-1, 1)
	step := 0
	switch {
	case key.Matches(k, keys.Up):
		step = -1
	case key.Matches(k, keys.Down):
		step = 1
	case key.Matches(k, keys.PageUp):
		step = -page
	case key.Matches(k, keys.PageDown):
		step = page
	case key.Matches(k, keys.Top):
		step = -1 << 30
	case key.Matches(k, keys.Bottom):
		step = 1 << 30
	case key.Matches(k, keys.Close), key.Matches(k, keys.Back):
		return common.Close{}
	case key.Matches(k, keys.Quit):
		return common.Quit{}
	}
	if step != 0 {
		h.offset = max(0, min(h.offset+step, len(Lines(c, c.Layout.W, h.first))-Rows(c.Layout)))
	}
	return nil
}

// Draw replaces the frame's body with the HELP title and the Rows lines
// of the help from the offset, the last one saying "↓ more" while lines
// remain below.
func (h *Overlay) Draw(c *common.Context, f *frame.Frame) {
	lines := []string{c.Styles.PanelFocus.Render("HELP") + c.Styles.Dim.Render("  (? or esc to close)")}
	all, rows := Lines(c, f.W, h.first), Rows(c.Layout)
	off := max(0, min(h.offset, len(all)-rows))
	end := min(off+rows, len(all))
	if end < len(all) { // lines remain below: the last one shown says so
		all[end-1] = c.Styles.Dim.Render(" ↓ more (j/k, pgup/pgdn)")
	}
	f.SetBody(append(lines, all[off:end]...))
}

// Fits is always true: the help scrolls on any screen the dashboard fits.
func (h *Overlay) Fits(*common.Context) bool { return true }

// Keys are the footer's words while the help is open: scroll, page,
// close, quit, with the keys in effect.
func (h *Overlay) Keys(c *common.Context) []key.Binding {
	k := &c.Keys.HelpView
	return []key.Binding{common.HelpKey(common.KeysOf(k.Up, k.Down), "scroll"), common.HelpKey(common.KeysOf(k.PageUp, k.PageDown), "page"),
		common.HelpKey(common.KeysOf(k.Close, k.Back), "close"), common.HelpKey(k.Quit.Help().Key, "quit")}
}

// Name is "help".
func (h *Overlay) Name() string { return "help" }

// Rows is how many lines of the full help fit: the screen less the
// header (2 lines), the HELP title and the footer (2 lines); at least 1.
func Rows(l common.Layout) int { return max(1, l.H-5) }

// Lines renders the full help for width w (cells): each key group is a
// column (the files pane's and the console's under their title), and as
// many columns as fit sit side by side (3 cells apart); the rest wrap
// below, a blank line between rows of groups. The group whose title
// starts with scope first (the keys of the layer the help was opened
// from), if any, comes first; "" keeps the key map's order.
func Lines(c *common.Context, w int, first string) []string {
	h := bhelp.New() // Width 0: never truncated by the help model itself
	h.Styles = c.Styles.Help
	var blocks [][]string
	groups := c.Keys.HelpGroups()
	if first != "" {
		if i := slices.IndexFunc(groups, func(g keymap.HelpGroup) bool { return strings.HasPrefix(g.Title, first) }); i > 0 {
			groups = append(append([]keymap.HelpGroup{groups[i]}, groups[:i]...), groups[i+1:]...)
		}
	}
	for _, g := range groups {
		if v := h.FullHelpView([][]key.Binding{g.Keys}); v != "" {
			b := strings.Split(v, "\n")
			if g.Title != "" { // a layer's own keys: say which layer
				b = append([]string{c.Styles.Bold.Render(termtext.Line(g.Title))}, b...)
			}
			blocks = append(blocks, b)
		}
	}
	const gap = 3
	var out []string
	for len(blocks) > 0 {
		n, used := 0, 1 // one leading cell
		for n < len(blocks) {
			bw := frame.BlockWidth(blocks[n])
			if n > 0 && used+gap+bw > w {
				break
			}
			used += bw + gap
			n++
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		height := 0
		for _, b := range blocks[:n] {
			height = max(height, len(b))
		}
		for r := 0; r < height; r++ {
			var line strings.Builder
			line.WriteString(" ")
			for _, b := range blocks[:n] {
				cell := ""
				if r < len(b) {
					cell = b[r]
				}
				// Each cell is padded to its column's width and the gap;
				// the last one's padding is trimmed with the line's end.
				line.WriteString(cell + strings.Repeat(" ", frame.BlockWidth(b)-ansi.StringWidth(cell)+gap))
			}
			out = append(out, strings.TrimRight(line.String(), " "))
		}
		blocks = blocks[n:]
	}
	return out
}
