package ops

import (
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/jupyter/jobs"
)

// A job's spec runs the script where StartJob uploads it, under
// /content: FILE as the user gave it when it is a relative path without
// "..", its base name otherwise; argv[0] says the same, as python FILE
// would; the id is a job id made from the script's name.
func TestJobSpecPlacesTheScript(t *testing.T) {
	needsJobsAPI(t)
	now := time.Date(2026, 12, 7, 5, 0, 0, 0, time.FixedZone("x", 3600))
	for file, want := range map[string]string{
		"train.py":           "train.py",
		"./train.py":         "./train.py",
		"src/train.py":       "src/train.py",
		"/home/u/train.py":   "train.py",
		"../train.py":        "train.py",
		"src/../../train.py": "train.py",
		"~/train.py":         "train.py",
	} {
		spec := JobSpec(JobRequest{Runtime: "runtimes/rt-a", File: file, Args: []string{"--lr", "0.1"}}, now)
		if spec.Argv0 != want || spec.File != "content/"+strings.TrimPrefix(want, "./") || spec.Cwd != "content" ||
			len(spec.Args) != 2 || !spec.Created.Equal(now) || spec.Created.Location().String() != "UTC" {
			t.Errorf("%q: %+v", file, spec)
		}
		if err := jobs.ValidID(spec.ID); err != nil || !strings.HasPrefix(spec.ID, "train-") {
			t.Errorf("%q: id %q (%v)", file, spec.ID, err)
		}
	}
	if spec := JobSpec(JobRequest{File: "x.py"}, now); spec.Args == nil {
		t.Error("no arguments are null in spec.json, not []")
	}
}
