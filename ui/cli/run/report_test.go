package run

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/colabdash/colabdash/ui/cli/kit/kittest"
)

// runJSON is the document run --json printed.
type runJSON struct {
	OK       *bool `json:"ok"`
	ExitCode *int  `json:"exitCode"`
	Error    *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// run --json says ok only when the exit code is 0; a failure's document
// carries the exit code and an error whose word is the code's.
func TestRunJSONAgreesWithTheExitCode(t *testing.T) {
	e := kittest.Empty(t)
	useFakeJobs(t)
	nb := filepath.Join(t.TempDir(), "bad.ipynb")
	if err := os.WriteFile(nb, []byte(`{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
  {"cell_type": "code", "metadata": {}, "execution_count": null, "outputs": [], "source": "raise KeyError('k')"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		code int
		word string
		msg  string // the error's message, when given
	}{
		{"success", []string{script(t, "print('hello')\n")}, 0, "", ""},
		{"exception", []string{script(t, "raise ValueError('nope')\n")}, 1, "failed", ""},
		{"sys.exit(3)", []string{script(t, "import sys\nsys.exit(3)\n")}, 3, "failed", "job.py exited 3"},
		{"failed cell", []string{nb}, 1, "failed", "cell 1 raised"},
		{"timeout", []string{"--timeout", "1s", script(t, "import time\ntime.sleep(600)\n")}, ExitRunTimeout, "timeout", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := e.Run(Command, append([]string{"--spec", "CPU", "--json"}, c.args...)...)
			var doc runJSON
			if err := json.Unmarshal([]byte(r.Out), &doc); err != nil || doc.OK == nil || doc.ExitCode == nil {
				t.Fatalf("stdout is not run's document (%v): %q", err, r.Out)
			}
			if r.Code != c.code || *doc.ExitCode != r.Code || *doc.OK != (r.Code == 0) {
				t.Fatalf("exit %d (want %d), document ok %v exitCode %d:\n%s", r.Code, c.code, *doc.OK, *doc.ExitCode, r.Out)
			}
			switch {
			case c.code == 0 && doc.Error != nil:
				t.Errorf("a success with an error: %+v", *doc.Error)
			case c.code != 0 && (doc.Error == nil || doc.Error.Code != c.word || doc.Error.Message == "" || c.msg != "" && doc.Error.Message != c.msg):
				t.Errorf("exit %d: error %+v, want the word %q and a message (%q)", r.Code, doc.Error, c.word, c.msg)
			}
			left(t, e)
		})
	}
}

// A --jq filter that fails on the document fails a run that succeeded
// (the result the script asked for was not printed); after a failed
// script the exit code stays the script's.
func TestRunJQFailure(t *testing.T) {
	e := kittest.Empty(t)
	useFakeJobs(t)
	r := e.Run(Command, "--spec", "CPU", "--jq", ".exitCode.x", script(t, "print('hello')\n"))
	if r.Code == 0 || r.Out != "" {
		t.Errorf("success: exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	r = e.Run(Command, "--spec", "CPU", "--jq", ".exitCode.x", script(t, "import sys\nsys.exit(3)\n"))
	if r.Code != 3 {
		t.Errorf("sys.exit(3): exit %d, stderr %q", r.Code, r.Err)
	}
	left(t, e)
}
