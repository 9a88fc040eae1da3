package state

import (
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/jupyter/jobs"
)

// The delete question names what a delete would stop: the running jobs
// (the newest by id and command, the others counted), the busy kernels,
// or that the jobs could not be checked; nothing for ended jobs.
func TestDeleteStakesSentence(t *testing.T) {
	now := jobT0.Add(time.Minute)
	live := func(id, argv0 string, args ...string) jobs.Record {
		return jobs.Record{Spec: jobs.Spec{ID: id, Argv0: argv0, Args: args, Created: jobT0},
			Status: running(now), Modified: now}
	}
	ended := jobs.Record{Spec: jobs.Spec{ID: "old-1", Argv0: "old.py"},
		Status: &jobs.Status{Started: jobT0, Ended: jobT0.Add(time.Second), Heartbeat: jobT0}, Modified: jobT0}
	long := "a_script_with_a_name_far_too_long_to_quote_whole.py"
	cases := []struct {
		name string
		s    DeleteStakes
		want string
	}{
		{"nothing running", NewDeleteStakes([]jobs.Record{ended}, now, 0), ""},
		{"kernels unknown", NewDeleteStakes(nil, now, -1), ""},
		{"one job", NewDeleteStakes([]jobs.Record{live("train-4kq9zt", "train.py"), ended}, now, 0),
			"It also stops its running job train-4kq9zt (python train.py)."},
		{"two jobs and a busy kernel", NewDeleteStakes([]jobs.Record{live("train-2", "train.py", "--epochs", "3"), live("train-1", "prep.py")}, now, 1),
			"It also stops its 2 running jobs, train-2 (python train.py --epochs 3) and 1 more, and the code running in its busy kernel."},
		{"busy kernels alone", NewDeleteStakes(nil, now, 2), "It also stops the code running in its 2 busy kernels."},
		{"long command", NewDeleteStakes([]jobs.Record{live("j", long)}, now, 0),
			"It also stops its running job j (python " + long[:32] + "…)."},
		{"unchecked", UncheckedStakes("timed out", -1),
			"Its jobs could not be checked (timed out): any running job would be stopped too."},
	}
	for _, c := range cases {
		if got := c.s.Sentence(); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}
