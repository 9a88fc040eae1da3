package pane

// How the pane draws: its title, its entries (directories first) and a
// listing error, in exactly the lines it is given.

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/termtext"
)

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
	if n := p.ls.countText(); n != "" {
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
	case !p.loading && len(p.ls.shown) == 0 && p.ls.filter != "":
		lines = append(lines, termtext.Cut("  (no entry matches the filter)", w))
	case !p.loading && len(p.ls.shown) == 0:
		lines = append(lines, termtext.Cut("  (empty; hidden files are not listed)", w))
	}
	if len(lines) == 1 && body > 0 {
		if p.cursor < p.offset {
			p.offset = p.cursor
		}
		if p.cursor >= p.offset+body {
			p.offset = p.cursor - body + 1
		}
		for i := p.offset; i < len(p.ls.shown) && len(lines) < h; i++ {
			e := p.ls.shown[i]
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
