// Package top holds `colabdash top`: every runtime's RAM, disk, GPU and
// kernel activity, one line per runtime, like `kubectl top`,
// read through each runtime's proxy (api/monitor) and judged by
// state/monitor.
package top

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/termtext"
)

// DefaultInterval is --watch's interval when none is given.
const DefaultInterval = 5 * time.Second

// minInterval is the shortest --watch interval accepted.
const minInterval = time.Second

// verb is kit.Verb with top's state.
type verb struct {
	*kit.Verb
	watch    bool
	interval time.Duration
}

// Command is `colabdash top`.
func Command(g *kit.Globals, s *kit.Streams) *cobra.Command {
	v := &verb{Verb: kit.NewVerb(g, s, "top"), interval: DefaultInterval}
	cmd := &cobra.Command{
		Use:   "top [RUNTIME...] [--json] [--watch [INTERVAL]]",
		Short: "Show each runtime's RAM, disk, GPU and kernel activity",
		Long: "top shows one line per runtime, like kubectl top: RAM and the VM's disk used/total (GiB),\n" +
			"the GPUs' memory and mean utilisation, the kernels busy and idle, and the activity: \"busy 0:42\"\n" +
			"(hours:minutes since the last output), \"idle 0:12\", \"IDLE 1:12\" once every kernel has been idle\n" +
			"for an hour (Colab disconnects idle runtimes after about 60–90 minutes; the limit is unofficial),\n" +
			"\"never connected\" for a kernel starting for over a minute with no connection, \"no kernels\" for a\n" +
			"runtime never used (its note: \"idle 45m since first seen\", counted from this top's first round;\n" +
			"a single read cannot tell how long, and says so). The note says\n" +
			"\"GPU never used\" when no GPU was used since the runtime started, \"resources not offered by this\n" +
			"runtime\" for a stock Jupyter server, and \"resources unavailable: …\" when the runtime failed to\n" +
			"answer. RUNTIME is an id (rt-abc), runtimes/rt-abc or a unique prefix; without one, every runtime\n" +
			"is shown. The figures come from each runtime's proxy (api/colab/resources and api/kernels) with\n" +
			"its proxy token only; a token the proxy refuses is renewed once with get_runtime and the call\n" +
			"retried once. --watch redraws every INTERVAL (default 5s, e.g. --watch=10s or --watch 10s) in\n" +
			"place on a terminal and appends time-stamped lines otherwise, until ctrl+c; with --json it prints\n" +
			"one document per round, \"ok\" false when some runtime could not be read.\n" +
			"--watch's cost is bounded: its first round reads every runtime, each later round at most\n" +
			"INTERVAL's share of 120 requests a minute, two a runtime (5 runtimes at 5s), those read longest\n" +
			"ago first; a runtime whose read failed is read again after 30s, then 1m, 2m, 4m, 5m (its row says\n" +
			"when); one runtime never has two requests at once. A runtime found deleted or reclaimed reads GONE,\n" +
			"without figures, and is not read again; when every RUNTIME named is gone, --watch ends with 6.\n" +
			"On a terminal the table fits its width, as jobs' does: NOTE is cut, then KERNELS, DISK and GPU%\n" +
			"are left out as needed; into a pipe or a file, and with --json, every column is whole.\n" + kit.JSONHelp + "\n" + kit.ExitCodesHelp,
		Example:           "  colabdash top\n  colabdash top rt-abc --json\n  colabdash top --watch\n  colabdash top rt-abc --watch 30s >> top.log",
		ValidArgsFunction: v.CompleteRuntimes,
		RunE: func(cmd *cobra.Command, args []string) error {
			err := v.run(cmd.Context(), args)
			if err == nil || !v.AsJSON || v.WroteJSON {
				return err
			}
			if jerr := v.WriteJSON(Report{Envelope: kit.Failure(err, v.Red()), Runtimes: []RuntimeReport{}}); jerr != nil {
				return jerr
			}
			return err
		},
	}
	f := cmd.Flags()
	v.JSONFlags(cmd, "print JSON: {ok, error, at, runtimes:[{name, ok, resourcesStatus, resources:{memory, disks, gpus}, kernels, activity}]}")
	f.Var(&watchFlag{v: v}, "watch", "redraw every INTERVAL (default 5s) until ctrl+c; off a terminal, append lines")
	f.Lookup("watch").NoOptDefVal = DefaultInterval.String()
	return cmd
}

// watchFlag is --watch [INTERVAL]: a duration with a default when given
// bare.
type watchFlag struct{ v *verb }

func (w *watchFlag) String() string {
	if w.v == nil || !w.v.watch {
		return ""
	}
	return w.v.interval.String()
}

func (w *watchFlag) Set(s string) error {
	d, err := parseInterval(s)
	if err != nil {
		return err
	}
	w.v.watch, w.v.interval = true, d
	return nil
}

func (w *watchFlag) Type() string { return "interval" }

// parseInterval reads a --watch interval: a Go duration of at least
// minInterval, or a bare number of seconds.
func parseInterval(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		var n int
		if _, serr := fmt.Sscanf(s, "%d", &n); serr == nil && fmt.Sprint(n) == s {
			d, err = time.Duration(n)*time.Second, nil
		}
	}
	if err != nil {
		return 0, errors.New("not a duration (e.g. 5s, 30s, 1m)")
	}
	if d < minInterval {
		return 0, fmt.Errorf("must be at least %s", minInterval)
	}
	return d, nil
}

// run is top's RunE: --watch's interval written as a separate word is
// taken out of args (a runtime id never starts with a digit), the runtimes
// listed and resolved, then one round, or rounds until ctx ends.
func (v *verb) run(ctx context.Context, args []string) error {
	if v.watch && len(args) > 0 {
		last := args[len(args)-1]
		if last != "" && last[0] >= '0' && last[0] <= '9' {
			d, err := parseInterval(last)
			if err != nil {
				return &kit.ExitError{Code: kit.ExitUsage, Msg: fmt.Sprintf("invalid argument %q for \"--watch\" flag: %v", last, err)}
			}
			v.interval, args = d, args[:len(args)-1]
		}
	}
	conn, err := v.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	listed, err := kit.ListRuntimes(ctx, conn)
	if err != nil {
		return err
	}
	rts, err := targets(listed, args)
	if err != nil {
		return err
	}
	p := newProber(conn, v.Red())
	p.watching = v.watch
	if !v.watch {
		rows := p.round(ctx, rts, time.Now, 0)
		if ctx.Err() != nil {
			return kit.Classify(ctx.Err(), nil)
		}
		if err := v.print(rows); err != nil {
			return err
		}
		return exitOf(rows)
	}
	return v.watchLoop(ctx, conn, p, rts, len(args) == 0)
}

// print writes one round: the JSON document, or the text table.
func (v *verb) print(rows []row) error {
	if v.AsJSON {
		at := time.Now()
		if len(rows) > 0 {
			at = rows[0].at
		}
		rep := newReport(rows, at)
		for i := range rep.Runtimes {
			// Every error text leaves through the redactor, as on stderr.
			r := &rep.Runtimes[i]
			r.Error, r.ResourcesError, r.KernelsError = v.Red().Redact(r.Error), v.Red().Redact(r.ResourcesError), v.Red().Redact(r.KernelsError)
		}
		return v.WriteJSON(rep)
	}
	if len(rows) == 0 {
		v.Note("no runtimes")
		return nil
	}
	for _, l := range textLines(rows, v.OutWidth()) {
		v.Say(l)
	}
	return nil
}

// exitOf is a round's exit code: 0 when every runtime was read, 7 (partial) when
// some were and some not, else the first failure's: 6 for a runtime
// found gone, 4 for one that could not be read.
func exitOf(rows []row) error {
	var o kit.Outcomes
	for _, r := range rows {
		if r.gone {
			o.Fail(&kit.ExitError{Code: kit.ExitNotFound})
		} else if r.failed() {
			o.Fail(&kit.ExitError{Code: kit.ExitAPI})
		} else {
			o.Succeed()
		}
	}
	return o.Err()
}

// watchLoop runs rounds every v.interval until ctx ends (ctrl+c: the exit
// code is the signal's). all: no RUNTIME was named, so every round lists
// the runtimes again and shows the ones created since.
func (v *verb) watchLoop(ctx context.Context, conn *kit.Connection, p *prober, rts []api.Runtime, all bool) error {
	inPlace := v.S.OutTTY && !v.AsJSON
	wroteHeader := false
	limit := 0 // the first round reads every runtime
	for {
		start := time.Now()
		rows := p.round(ctx, rts, time.Now, limit)
		limit = RoundLimit(v.interval)
		if ctx.Err() != nil {
			return nil
		}
		switch {
		case v.AsJSON:
			if err := v.print(rows); err != nil {
				return err
			}
		case inPlace:
			v.redraw(rows, start)
		default:
			v.appendLines(rows, !wroteHeader)
			wroteHeader = true
		}
		if !all && len(rows) > 0 && !slices.ContainsFunc(rows, func(r row) bool { return !r.gone }) {
			return &kit.ExitError{Code: kit.ExitNotFound, Msg: "every runtime named is gone (deleted or reclaimed)"}
		}
		t := time.NewTimer(time.Until(start.Add(v.interval)))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		if listed, err := conn.Svc.ListRuntimes(ctx); err == nil {
			if all {
				rts, _ = targets(listed, nil)
			} else {
				p.markUnlisted(rts, listed)
				rts = refresh(rts, listed)
			}
		} else if ctx.Err() != nil {
			return nil
		} else {
			v.Note(kit.Classify(err, conn.Creds).Msg)
		}
	}
}

// redraw clears the terminal and draws the table under a title line
// ("every 5s · 15:04:05").
func (v *verb) redraw(rows []row, at time.Time) {
	v.Mu.Lock()
	_, _ = fmt.Fprint(v.S.Out, "\x1b[H\x1b[2J") // home, clear: our own sequence, not server text
	v.Mu.Unlock()
	width := v.OutWidth()
	title := fmt.Sprintf("colabdash top · every %s · %s · ctrl+c ends", v.interval, at.Local().Format("15:04:05"))
	if width > 0 {
		title = termtext.Cut(title, width)
	}
	v.Say(title)
	v.Say("")
	if len(rows) == 0 {
		v.Say("no runtimes")
		return
	}
	for _, l := range textLines(rows, width) {
		v.Say(l)
	}
}

// appendLines writes the round's rows, each after its time (TIME column),
// the header only with the first round.
func (v *verb) appendLines(rows []row, withHeader bool) {
	cells := [][]string{append([]string{"TIME"}, header...)}
	for _, r := range rows {
		cells = append(cells, append([]string{r.at.Local().Format("15:04:05")}, r.cells()...))
	}
	lines := kit.Table{MinWidths: appendWidths}.Lines(cells, 0) // never a terminal
	if !withHeader {
		lines = lines[1:]
	}
	for _, l := range lines {
		v.Say(l)
	}
}

// appendWidths are the least widths of the appended lines' columns, so
// that rounds line up under the one header in most cases.
var appendWidths = []int{8, 13, 14, 16, 24, 4, 13, 10}
