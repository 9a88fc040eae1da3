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
	idw := 0
	for _, j := range js[:min(len(js), shownJobs)] {
		idw = max(idw, len(j.Record.Spec.ID))
	}
	idw = min(idw, 20)
	for i, j := range js {
		if i == shownJobs {
			out = append(out, line{prioMoreJobs, c.Styles.Dim.Render("   … " + strconv.Itoa(len(js)-i) + " more (colabdash jobs " + termtext.Line(r.ID()) + ")")})
			break
		}
		v := state.JudgeJob(j.Record, now, 0)
		word := termtext.Line(v.Word())
		if !v.Ended() {
			word = c.Styles.Warn.Render(word)
		}
		text := "   " + frame.Fit(j.Record.Spec.ID, idw) + " " + word + " " + state.FormatDuration(v.Duration)
		if last := strings.TrimSpace(j.Last); last != "" {
			text += c.Styles.Dim.Render(" │ " + termtext.Line(c.Redact(last)))
		}
		out = append(out, line{prioJob + min(i, 4), text})
	}
	return out
}
