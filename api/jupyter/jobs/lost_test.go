package jobs_test

import (
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/state"
)

// A job whose supervisor was killed with kill -9 stops being rewritten:
// judged with a lost-after of two heartbeats, it turns lost, while a job
// whose supervisor lives stays running all along, its heartbeats moving
// status.json's last_modified on. (The judgement takes the client's now;
// the runtime's clock here is this machine's.)
func TestKilledSupervisorMakesTheJobLost(t *testing.T) {
	x := jobs.NewEnvForTest(t)
	const script = "import time\nprint('up', flush=True)\nwhile True:\n    time.sleep(0.05)\n"
	live, killed := x.Start(t, "live.py", script), x.Start(t, "killed.py", script)
	killed.KillSupervisor(t)
	lostAfter := 2*jobs.HeartbeatEvery + time.Second
	end := time.Now().Add(lostAfter + time.Minute)
	for {
		k := state.JudgeJob(killed.Read(t), time.Now(), lostAfter)
		l := state.JudgeJob(live.Read(t), time.Now(), lostAfter)
		if l.State != state.JobRunning {
			t.Fatalf("a job whose supervisor lives is %s", l.Word())
		}
		if k.State == state.JobLost {
			break
		}
		if k.State != state.JobRunning {
			t.Fatalf("a job whose supervisor was killed is %s before lost", k.Word())
		}
		if time.Now().After(end) {
			t.Fatalf("the job of a killed supervisor is still %s after %s", k.Word(), lostAfter+time.Minute)
		}
		time.Sleep(200 * time.Millisecond) // a poll of the runtime, as `jobs --watch` does
	}
}
