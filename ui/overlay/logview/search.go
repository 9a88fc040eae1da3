package logview

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/termtext"
	"github.com/colabdash/colabdash/ui/widget/frame"
	"github.com/colabdash/colabdash/ui/widget/lineedit"
)

// SearchLine is the viewer's search line (/), drawn over the status line
// as the event log's filter is: enter searches for what was typed (the
// first line holding it at or below the view's top, ignoring case; its
// hits highlighted), esc clears the search, ctrl+c quits. It implements
// common.Overlay.
type SearchLine struct {
	o  *Overlay
	in lineedit.Editor
}

func newSearchLine(o *Overlay) *SearchLine {
	in := lineedit.Editor{Limit: 200}
	in.Set(o.v.query)
	in.Selected = o.v.query != ""
	return &SearchLine{o: o, in: in}
}

// HandleKey edits the query; enter searches, esc clears the search.
func (s *SearchLine) HandleKey(k tea.KeyMsg, c *common.Context) common.Effect {
	switch k.Type {
	case tea.KeyCtrlC:
		return common.Quit{}
	case tea.KeyEsc:
		s.o.v.query, s.o.match = "", -1
		return common.Close{Text: "log search cleared"}
	case tea.KeyEnter:
		if k.Alt {
			return nil
		}
		q := s.in.Value()
		s.o.v.query, s.o.match = q, -1
		if q == "" {
			return common.Close{Text: "log search cleared"}
		}
		return s.o.findFrom(c, 0)
	}
	s.in.Handle(k)
	return nil
}

// Draw paints the line over the status line (the log is drawn beneath).
func (s *SearchLine) Draw(c *common.Context, fr *frame.Frame) {
	const hint = "  enter search · esc clear"
	if s.in.Selected {
		fr.SetStatus("/" + c.Styles.Selected.Render(termtext.Line(s.in.Value())) + lineedit.Cursor +
			c.Styles.Dim.Render("  type to replace"+hint))
		return
	}
	fr.SetStatus(s.in.View("/", "", max(fr.W-len(hint), 10), 1)[0] + c.Styles.Dim.Render(hint))
}

// Fits: the line fits every screen the dashboard lays out.
func (s *SearchLine) Fits(*common.Context) bool { return true }

// Keys are the footer's keys while the line is open.
func (s *SearchLine) Keys(*common.Context) []key.Binding {
	return []key.Binding{common.HelpKey("enter", "search"), common.HelpKey("esc", "clear"), common.HelpKey("ctrl+c", "quit")}
}

// Name is "log search".
func (s *SearchLine) Name() string { return "log search" }

// findNext is n (dir 1) or N (dir -1): the next line holding the query
// after (before) the current match, or the view's top when there is
// none, wrapping around the log's ends.
func (o *Overlay) findNext(c *common.Context, dir int) common.Effect {
	if o.v.query == "" {
		return common.Say{Text: "no log search: " + c.Keys.LogView.Search.Help().Key + " searches", Err: true}
	}
	e := o.findFrom(c, dir)
	if cl, ok := e.(common.Close); ok { // not from the search line: nothing to close
		return common.Say{Text: cl.Text, Err: cl.Err}
	}
	return e
}

// findFrom moves to the line holding the query: from the current match
// (or the view's top) onwards for dir 1, backwards for -1, and from the
// view's top itself for 0. The effect closes the search line with what
// was found.
func (o *Overlay) findFrom(c *common.Context, dir int) common.Effect {
	w, room := c.Layout.W, room(c.Layout.H-4)
	n := o.v.count()
	if n == 0 {
		return common.Close{Text: "the log is empty: nothing to search", Err: true}
	}
	from, _ := o.v.start(c, w, room)
	if o.match >= o.buf.Dropped() {
		from = o.v.virt(o.match)
	}
	step := dir
	if dir == 0 {
		step = 1
	} else {
		from += dir
	}
	q := strings.ToLower(o.v.query)
	first := (from%n + n) % n
	for k := 0; k < n; k++ {
		v := ((from+step*k)%n + n) % n
		if strings.Contains(strings.ToLower(o.v.plain(c, v)), q) {
			o.show(c, w, room, v)
			text := "line " + thousands(o.v.abs(v)+1) + " holds " + strconv.Quote(termtext.Line(o.v.query))
			if step > 0 && v < first || step < 0 && v > first {
				text += " (search wrapped)"
			}
			return common.Close{Text: text}
		}
	}
	o.match = -1
	return common.Close{Text: "no line holds " + strconv.Quote(termtext.Line(o.v.query)), Err: true}
}

// show makes virtual line v the current match and scrolls it into view.
func (o *Overlay) show(c *common.Context, w, room, v int) {
	o.match = o.v.abs(v)
	o.v.reveal(c, w, room, v)
}
