package details

import (
	"strconv"
	"strings"
	"time"

	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/termtext"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

// The jobs' lines: a summary ("2 running · 1 ended · l follows the
// newest"), then a line a job, newest first: its id, state,
// duration and the last line of its output (read for the selected
// runtime's running jobs, and once after its end for an ended one). A short pane keeps the summary before the
// RAM and the first jobs before the spec.
const (
	prioJobs     = 12
	prioJob      = 25
	prioMoreJobs = 42
	shownJobs    = 5
)

// jobLines are runtime r's jobs as c.Jobs last listed them (none when it
// has none or they are not listed).
func jobLines(c *common.Context, r *state.Runtime, now time.Time, w int) []line {
	if c.Jobs == nil || r.Gone() {
		return nil
	}
	js, ok := c.Jobs.Jobs(r.Name)
	if !ok || len(js) == 0 {
		return nil
	}
	running := 0
	for _, j := range js {
		if !state.JudgeJob(j.Record, now, 0).Ended() {
			running++
		}
	}
	sum := strconv.Itoa(running) + " running · " + strconv.Itoa(len(js)-running) + " ended"
	if c.Jobs.ByRun(r.Name) {
		sum += " · deleted when done"
	}
	hint := " shows the newest"
	if running > 0 {
		hint = " follows the newest"
	}
	sum += c.Styles.Dim.Render(" · " + c.Keys.Word(keymap.ActionLogs) + hint)
	out := []line{{prioJobs, " " + frame.Fit("jobs", 8) + " " + sum}}
	// The shown jobs' cells, measured first so that their columns (id,
	// state, duration, then the "│" before the last line) line up.
	type cells struct{ id, word, dur, last string }
	shown := make([]cells, 0, min(len(js), shownJobs))
	idw, wordw, durw := 0, 0, 0
	for _, j := range js[:min(len(js), shownJobs)] {
		v := state.JudgeJob(j.Record, now, 0)
		cl := cells{id: j.Record.Spec.ID, word: termtext.Line(v.Word()), dur: state.FormatDuration(v.Duration),
			last: strings.TrimSpace(j.Last)}
		idw, wordw, durw = max(idw, len(cl.id)), max(wordw, termtext.Width(cl.word)), max(durw, len(cl.dur))
		shown = append(shown, cl)
	}
	idw = min(idw, 20)
	for i, cl := range shown {
		word := frame.Fit(cl.word, wordw)
		if !state.JudgeJob(js[i].Record, now, 0).Ended() {
			word = c.Styles.Warn.Render(word)
		}
		text := "   " + frame.Fit(cl.id, idw) + " " + word + " " + cl.dur
		if cl.last != "" {
			text += strings.Repeat(" ", durw-len(cl.dur)) + c.Styles.Dim.Render(" │ "+termtext.Line(c.Redact(cl.last)))
		}
		out = append(out, line{prioJob + min(i, 4), text})
	}
	if len(js) > shownJobs {
		out = append(out, line{prioMoreJobs, c.Styles.Dim.Render("   … " + strconv.Itoa(len(js)-shownJobs) + " more (colabdash jobs " + termtext.Line(r.ID()) + ")")})
	}
	return out
}
