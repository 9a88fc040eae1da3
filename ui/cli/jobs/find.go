package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	rjobs "github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/termtext"
)

// Package seams (tests replace them): the job notes of the state
// directory, the state directory where the colabdash processes sharing
// it claim a note's delete and hold a runtime (ops.ClaimWhenDone,
// ops.HoldRuntime), and the job id check.
var (
	loadNotes  = func() ([]ops.JobNote, error) { return ops.JobNotes(kit.StateDir()) }
	forgetNote = func(id string) error { return ops.ForgetJobNote(kit.StateDir(), id) }
	stateDir   = kit.StateDir
	validID    = rjobs.ValidID
)

// claimDelete claims note n's delete at now (ops.ClaimWhenDone; own is
// this process's hold of the runtime, if any).
func claimDelete(n ops.JobNote, own *ops.RuntimeHold) ops.WhenDoneClaim {
	return ops.ClaimWhenDone(stateDir(), n.Runtime, n.ID, now(), own)
}

// found is a job located on its runtime.
type found struct {
	id   string
	rt   api.Runtime
	rj   runtimeJobs
	rec  rjobs.Record
	note *ops.JobNote // this machine's note of it, if any
}

// rtID is the job's runtime id, ready for the terminal.
func (f *found) rtID() string { return termtext.Cut(f.rt.ID(), 63) }

// ref is how lines name the job: "rt-abc/train-4kq9zt".
func (f *found) ref() string { return f.rtID() + "/" + f.id }

// splitJobArg reads JOB or RUNTIME/JOB (runtimes/RUNTIME/JOB too).
func splitJobArg(arg string) (rt, id string) {
	a := strings.TrimPrefix(strings.TrimSpace(arg), "runtimes/")
	if i := strings.LastIndexByte(a, '/'); i >= 0 {
		return a[:i], a[i+1:]
	}
	return "", a
}

// locate finds the job arg names: on the runtime it names (RUNTIME/JOB),
// else on the runtime this machine's note of it says, else by reading
// each listed runtime's jobs directory. Errors are *kit.ExitError: 2 for
// an argument that is no job id, 6 for a job no runtime has.
func (v *verb) locate(ctx context.Context, b backend, arg string) (*found, error) {
	rtArg, id := splitJobArg(arg)
	if rjobs.ValidID(id) != nil {
		return nil, &kit.ExitError{Code: kit.ExitUsage, Msg: fmt.Sprintf("%q is not a job id (lower-case letters, digits and -, as run --detach prints it)", termtext.Cut(id, 80))}
	}
	rts, err := b.Runtimes(ctx)
	if err != nil {
		return nil, b.Classify(err)
	}
	if rtArg != "" {
		rt, err := kit.ResolveRuntime(rts, rtArg)
		if err != nil {
			return nil, err
		}
		return v.readOn(ctx, b, rt, id, nil)
	}
	note, err := noteOf(id)
	if err != nil {
		v.Note("the job notes could not be read (" + err.Error() + "); looking on every runtime")
	}
	if note != nil {
		rt, ok := listed(rts, note.Runtime)
		if !ok {
			return nil, &kit.ExitError{Code: kit.ExitNotFound, Msg: fmt.Sprintf("job %s was on runtime %s, which is no longer listed (deleted, or reclaimed by Colab)",
				id, termtext.Cut(api.LastSegment(note.Runtime), 63))}
		}
		return v.readOn(ctx, b, rt, id, note)
	}
	var unread []string
	for _, rt := range rts {
		f, err := v.readOn(ctx, b, rt, id, nil)
		if err == nil {
			return f, nil
		}
		var ee *kit.ExitError
		if errors.As(err, &ee) && ee.Code != kit.ExitNotFound {
			unread = append(unread, termtext.Cut(rt.ID(), 63))
		}
	}
	msg := fmt.Sprintf("no job %s on the listed runtimes", id)
	if len(unread) > 0 {
		msg += " (could not read " + strings.Join(unread, ", ") + ")"
	}
	return nil, &kit.ExitError{Code: kit.ExitNotFound, Msg: msg}
}

// noteOf is this machine's note of job id (nil: none).
func noteOf(id string) (*ops.JobNote, error) {
	notes, err := loadNotes()
	if err != nil {
		return nil, err
	}
	for i := range notes {
		if notes[i].ID == id {
			return &notes[i], nil
		}
	}
	return nil, nil
}

// listed returns the runtime named name among rts.
func listed(rts []api.Runtime, name string) (api.Runtime, bool) {
	for _, rt := range rts {
		if rt.Name == name {
			return rt, true
		}
	}
	return api.Runtime{}, false
}

// readOn reads job id on runtime rt.
func (v *verb) readOn(ctx context.Context, b backend, rt api.Runtime, id string, note *ops.JobNote) (*found, error) {
	rj, err := b.Open(ctx, rt)
	if err != nil {
		if errors.Is(err, ops.ErrNoConnection) {
			return nil, &kit.ExitError{Code: kit.ExitAPI, Msg: fmt.Sprintf("runtime %s has no connectionInfo yet (is it still starting?)", termtext.Cut(rt.ID(), 63))}
		}
		return nil, b.Classify(err)
	}
	rec, err := rj.Read(ctx, id)
	if errors.Is(err, jupyter.ErrNotFound) {
		return nil, &kit.ExitError{Code: kit.ExitNotFound, Msg: fmt.Sprintf("no job %s on runtime %s", id, termtext.Cut(rt.ID(), 63))}
	}
	if err != nil {
		return nil, b.Classify(err)
	}
	return &found{id: id, rt: rt, rj: rj, rec: rec, note: note}, nil
}

// completeJobs offers the ids of the jobs this machine noted (no network:
// completion must not hold up the shell).
func completeJobs(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	none := cobra.ShellCompDirectiveNoFileComp
	if len(args) > 0 {
		return nil, none
	}
	notes, err := loadNotes()
	if err != nil {
		return nil, none
	}
	var ids []string
	for _, n := range notes {
		if strings.HasPrefix(n.ID, toComplete) {
			ids = append(ids, n.ID+"\t"+termtext.Cut(api.LastSegment(n.Runtime), 63)+" "+termtext.Cut(n.File, 60))
		}
	}
	return ids, none
}
