package colabfake

// The demo seed's jobs, so that `colabdash --demo` has jobs to show: on
// the T4 runtime, a training run that started shortly before the
// emulator did and goes on for a while, and an evaluation that finished
// with 0 long before. Their scripts are in /root, not /content, so that
// the demo's /content stays as the dashboard's pictures show it.

import (
	"encoding/json"
	"path"
	"time"

	"github.com/colabdash/colabdash/api/jupyter/jobs/jobwire"
)

// The demo seed's jobs (SeedDemo): both on DemoJobsRuntime. DemoRunningJob
// runs demoTrainScript, started 90 s before the emulator's start: an epoch
// line every 4 s on stdout for 300 epochs, with a progress bar drawn over
// itself with "\r" on stderr between them, as tqdm does. DemoFinishedJob
// ran 25 min before the start and exited 0 about 2 min later.
const (
	DemoJobsRuntime = "rt-t4demo7k2p"
	DemoRunningJob  = "train-demo01"
	DemoFinishedJob = "evaluate-demo02"
)

const demoTrainScript = `# A short training run: an epoch line every few seconds, and a progress
# bar drawn over itself with \r on stderr, as tqdm draws it.
import sys
import time

print("training resnet18 on /content/data: 300 epochs")
for epoch in range(300):
    for step in range(10):
        print(f"\repoch {epoch + 1}: {(step + 1) * 10}%|{'#' * (step + 1)}{' ' * (9 - step)}| {step + 1}/10", end="", file=sys.stderr, flush=True)
        time.sleep(0.4)
    print(f"\repoch {epoch + 1}/300 loss 0.{9990 - 30 * epoch} acc 0.{5000 + 15 * epoch}")
print("saved /content/checkpoints/last.pt")
`

const demoEvalScript = `# Evaluates the best checkpoint, a quarter of the test set at a time.
import time

print("evaluating /content/checkpoints/best.pt on 10000 images")
for part in range(4):
    time.sleep(30)
    print(f"part {part + 1}/4: accuracy 0.{9412 + part}")
print("accuracy 0.9415")
`

// seedDemoJobs writes the demo's jobs (the emulator's now is now) and
// sets them to start with startSeededJobs. With a Jupyter upstream the
// files are that server's: there are no demo jobs.
func (s *Server) seedDemoJobs(now time.Time) {
	for _, d := range []struct {
		id, file, script string
		args             []string
		start            time.Time
	}{
		{DemoFinishedJob, "root/evaluate.py", demoEvalScript, []string{}, now.Add(-25 * time.Minute)},
		{DemoRunningJob, "root/train.py", demoTrainScript, []string{"--epochs", "300"}, now.Add(-90 * time.Second)},
	} {
		rname := "runtimes/" + DemoJobsRuntime
		spec := jobwire.Spec{ID: d.id, Cwd: path.Dir(d.file), File: d.file, Argv0: path.Base(d.file), Args: d.args, Created: d.start}
		b, _ := json.Marshal(spec)
		if s.proxy.WriteFile(rname, d.file, []byte(d.script), d.start) != nil ||
			s.proxy.WriteFile(rname, jobwire.Dir(d.id)+"/"+jobwire.SpecFile, b, d.start) != nil {
			return
		}
		j, code, err := s.newJob(rname, d.id, d.start)
		if err != nil {
			return
		}
		s.jobs.seeded = append(s.jobs.seeded, seededJob{j, code})
	}
}

// seededJob is a job of the seed, to start once the seed is complete.
type seededJob struct {
	j    *emuJob
	code string
}

// startSeededJobs starts the seed's jobs, once New has built the
// emulator's state, and waits until they have written what they wrote
// until now (they started in the past).
func (s *Server) startSeededJobs() {
	seeded := s.jobs.seeded
	s.jobs.seeded = nil
	for _, sj := range seeded {
		s.wg.Add(1)
		go sj.j.run(sj.code)
	}
	for _, sj := range seeded {
		<-sj.j.caughtUp
	}
}
