package state

import (
	"strconv"
	"time"

	"github.com/colabdash/colabdash/api/jupyter/jobs"
)

// DeleteStakes is what deleting one runtime ends besides its files and
// sessions: the jobs running on it and the kernels running code, as far
// as the asker knows them. The dashboard's delete question and the
// CLI's word it the same way, through Sentence.
type DeleteStakes struct {
	// Running are the runtime's jobs that have not ended (starting or
	// running by JudgeJob), newest first as listed.
	Running []jobs.Spec
	// JobsUnchecked is set when the jobs could not be read; JobsWhy says
	// why in a few words ("" when not said).
	JobsUnchecked bool
	JobsWhy       string
	// BusyKernels counts the kernels executing code (execution_state
	// busy); -1 when it is not known.
	BusyKernels int
}

// NewDeleteStakes judges recs (a runtime's jobs as listed, newest first)
// at now and keeps the ones that have not ended; busyKernels as
// DeleteStakes.BusyKernels.
func NewDeleteStakes(recs []jobs.Record, now time.Time, busyKernels int) DeleteStakes {
	s := DeleteStakes{BusyKernels: busyKernels}
	for _, r := range recs {
		if !JudgeJob(r, now, 0).Ended() {
			s.Running = append(s.Running, r.Spec)
		}
	}
	return s
}

// UncheckedStakes is the DeleteStakes of a runtime whose jobs could not
// be read, for why; busyKernels as DeleteStakes.BusyKernels.
func UncheckedStakes(why string, busyKernels int) DeleteStakes {
	return DeleteStakes{JobsUnchecked: true, JobsWhy: why, BusyKernels: busyKernels}
}

// stakeCommandRunes bounds the command a Sentence quotes.
const stakeCommandRunes = 40

// Sentence is the delete question's line about the stakes, "" when none
// is known:
//
//	It also stops its running job train-4kq9zt (python train.py).
//	It also stops its 2 running jobs, train-4kq9zt (python train.py) and 1 more.
//	It also stops its running job …, and the code running in its busy kernel.
//	It also stops the code running in its 2 busy kernels.
//	Its jobs could not be checked (why): any running job would be stopped too.
//
// The job's id and command come from the runtime: raw, the caller
// sanitizes the sentence for a terminal.
func (s DeleteStakes) Sentence() string {
	kernels := ""
	switch {
	case s.BusyKernels == 1:
		kernels = "the code running in its busy kernel"
	case s.BusyKernels > 1:
		kernels = "the code running in its " + strconv.Itoa(s.BusyKernels) + " busy kernels"
	}
	if s.JobsUnchecked {
		why := ""
		if s.JobsWhy != "" {
			why = " (" + s.JobsWhy + ")"
		}
		out := "Its jobs could not be checked" + why + ": any running job would be stopped too."
		if kernels != "" {
			out += " It also stops " + kernels + "."
		}
		return out
	}
	var job string
	switch n := len(s.Running); {
	case n == 1:
		job = "its running job " + jobRef(s.Running[0])
	case n > 1:
		job = "its " + strconv.Itoa(n) + " running jobs, " + jobRef(s.Running[0]) + " and " + strconv.Itoa(n-1) + " more"
	}
	switch {
	case job != "" && kernels != "":
		return "It also stops " + job + ", and " + kernels + "."
	case job != "":
		return "It also stops " + job + "."
	case kernels != "":
		return "It also stops " + kernels + "."
	}
	return ""
}

// jobRef names a job by its id and, when known, its command cut to
// stakeCommandRunes: "train-4kq9zt (python train.py)".
func jobRef(spec jobs.Spec) string {
	cmd := JobScript(spec)
	if cmd == "" {
		return spec.ID
	}
	cmd = "python " + cmd
	if r := []rune(cmd); len(r) > stakeCommandRunes {
		cmd = string(r[:stakeCommandRunes-1]) + "…"
	}
	return spec.ID + " (" + cmd + ")"
}
