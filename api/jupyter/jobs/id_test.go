package jobs

import (
	"errors"
	"strings"
	"testing"
)

// NewID names a job after its script, in the characters every path, URL
// and terminal takes as they are, and never gives the same id twice.
func TestNewIDIsValidAndNamedAfterTheScript(t *testing.T) {
	for file, stem := range map[string]string{
		"train.py":                          "train-",
		"/home/me/My Train_Script.v2.py":    "my-train-script-v2-",
		`C:\work\eval.py`:                   "eval-",
		"":                                  "job-",
		"-.py":                              "job-",
		"日本語.py":                            "job-",
		".hidden":                           "hidden-",
		"a-very-long-script-name-indeed.py": "a-very-long-script-n-",
		"abcdefghijklmnopqrs-tuv.py":        "abcdefghijklmnopqrs-",
	} {
		id := NewID(file)
		if err := ValidID(id); err != nil {
			t.Errorf("NewID(%q) = %q, which ValidID refuses", file, id)
		}
		if !strings.HasPrefix(id, stem) || len(id) != len(stem)+6 {
			t.Errorf("NewID(%q) = %q, want %q and 6 random characters", file, id, stem)
		}
	}
	seen := map[string]bool{}
	for range 1000 {
		id := NewID("x.py")
		if seen[id] {
			t.Fatalf("NewID gave %q twice in 1000 ids", id)
		}
		seen[id] = true
	}
}

// Only NewID's shapes pass ValidID: a name from a runtime that could
// climb a path, break a URL or carry terminal controls is refused.
func TestValidIDRefusesWhatIsNotAnID(t *testing.T) {
	for _, id := range []string{"train-4kq9zt", "a", "0-", strings.Repeat("a", 40)} {
		if err := ValidID(id); err != nil {
			t.Errorf("ValidID(%q) = %v, want nil", id, err)
		}
	}
	for _, id := range []string{"", "-x", "..", "../x", "a/b", "A", "a b", "a\x1b[2J", "ü", strings.Repeat("a", 41), "a.b", "a_b"} {
		if err := ValidID(id); !errors.Is(err, ErrBadID) {
			t.Errorf("ValidID(%q) = %v, want ErrBadID", id, err)
		}
	}
}

// The launcher's line gives the supervisor's pid; anything else is an
// error saying why the job did not start, in one bounded line.
func TestParseLaunch(t *testing.T) {
	pid, err := ParseLaunch("noise\ncolabdash-job {\"pid\": 4242}\n")
	if err != nil || pid != 4242 {
		t.Errorf("ParseLaunch = %d, %v; want 4242", pid, err)
	}
	for out, want := range map[string]string{
		"":                                 "printed no colabdash-job line",
		"Traceback...\nNameError: x\n":     "printed no colabdash-job line",
		"colabdash-job {\"pid\": 1}\n":     "no valid pid",
		"colabdash-job {\"pid\": -5}\n":    "no valid pid",
		"colabdash-job {}\n":               "no valid pid",
		"colabdash-job {\"pid\": \"x\"}\n": "not the expected JSON",
		"colabdash-job nope\n":             "not the expected JSON",
		"colabdash-job {\"error\": \"no job directory var/colabdash/jobs/x above /content\"}": "the job did not start: no job directory",
	} {
		_, err := ParseLaunch(out)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseLaunch(%q) = %v, want an error with %q", out, err, want)
		}
	}
	_, err = ParseLaunch("colabdash-job {\"error\": \"line one\\nline two\\u001b[31m" + strings.Repeat("x", 1000) + "\"}")
	if err == nil || strings.ContainsAny(err.Error(), "\n\x1b") || len(err.Error()) > 400 {
		t.Errorf("a runtime's error text reached the message unbounded or with controls: %q", err)
	}
}

// The launcher starts with the marker the emulator knows it by, and an id
// that is not ours never reaches the Python source.
func TestLauncherCode(t *testing.T) {
	code := LauncherCode("train-4kq9zt")
	if !strings.HasPrefix(code, LauncherMarker+"\n") || !strings.Contains(code, "'train-4kq9zt'") {
		t.Errorf("LauncherCode lacks the marker or the id:\n%s", code)
	}
	bad := LauncherCode("x'); import os; os.system('rm -rf /') #")
	if !strings.HasPrefix(bad, LauncherMarker+"\n") || strings.Contains(bad, "os.system") {
		t.Errorf("LauncherCode of a bad id:\n%s", bad)
	}
}
