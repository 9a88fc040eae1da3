package jobs

import (
	"context"
	"fmt"
	"strings"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/notify"
)

// notifyOptions are the Notifier's options for a verb: the config's
// notify: section, the events claimed in this machine's state directory
// (so a dashboard or another verb watching the same job tells its end
// once), the process's redactor. A variable for tests.
var notifyOptions = func(v *verb) notify.Options {
	o := notify.Options{StateDir: kit.StateDir(), Redactor: v.Red()}
	if v.G.Settings != nil {
		o.Settings = v.G.Settings.Notify
	}
	return o
}

// teller tells the events of one verb's run.
type teller struct {
	v *verb
	n *notify.Notifier
}

// newTeller builds the verb's teller (nil settings: the defaults).
func (v *verb) newTeller() *teller {
	return &teller{v: v, n: notify.New(notifyOptions(v))}
}

// tell tells ev: the bell or the OSC notification to stderr when it is
// a terminal (stdout may be a pipe or a --json document), the user's
// command (its failure said on stderr). Nothing when another colabdash
// told it already, or when its kind is muted.
func (t *teller) tell(ctx context.Context, ev state.Event) {
	d := t.n.Notify(ctx, ev)
	if len(d.Terminal) > 0 && t.v.S.ErrTTY {
		_, _ = t.v.S.Err.Write(d.Terminal)
	}
	if d.Command != "" && d.Command != "ran" {
		t.v.Note("notify command: " + d.Command)
	}
}

// entryEnded is the event of the end of e's job: state.JobEnded of its
// record, the same event (and words) as the dashboard's and wait's.
func entryEnded(e JobEntry) state.Event {
	t := now()
	return state.JobEnded(e.rec, state.JudgeJob(e.rec, t, 0), t)
}

// watchEnds tells the jobs of rep seen running in an earlier round
// (running: runtime/id seen not ended, updated) and ended now.
func (t *teller) watchEnds(ctx context.Context, rep JobsReport, running map[string]bool) {
	for _, e := range rep.Jobs {
		k := string(e.Runtime) + "/" + e.ID
		if !endedState(e.State) {
			running[k] = true
			continue
		}
		if running[k] {
			delete(running, k)
			t.tell(ctx, entryEnded(e))
		}
	}
}

// deleted tells that runtime was deleted after job id ended (how: its
// state word), as --delete-when-done asked: an event of the job's end
// (muted with it), apart from the end itself.
func (t *teller) deleted(ctx context.Context, runtime, id, how string) {
	rt := api.LastSegment(runtime)
	t.tell(ctx, state.Event{Kind: state.EventJobEnded, Runtime: rt, Job: id, Status: how + ", runtime deleted", Instance: "runtime deleted",
		Text: fmt.Sprintf("deleted runtime %s: job %s ended (%s), as --delete-when-done asked", rt, id, strings.TrimSpace(how)), At: now()})
}
