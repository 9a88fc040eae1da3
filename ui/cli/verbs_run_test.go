package cli

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/testkit"
	"github.com/colabdash/colabdash/ui/cli/kit"
	runcmd "github.com/colabdash/colabdash/ui/cli/run"
	"github.com/colabdash/colabdash/ui/ops"
)

// runRecords lists the run records left in the state directory.
func runRecords(t *testing.T) []string {
	t.Helper()
	entries, _ := os.ReadDir(filepath.Join(ops.StateDir(), runcmd.RunRecordDir))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// noRuntimeLeft fails the test when the emulator still lists a runtime or
// a run record is left in the state directory.
func noRuntimeLeft(t *testing.T, e *verbEnv, what string) {
	t.Helper()
	if rts := e.srv.Runtimes(); len(rts) != 0 {
		t.Errorf("%s: %d runtime(s) left: %v", what, len(rts), rts[0].Name)
	}
	if recs := runRecords(t); len(recs) != 0 {
		t.Errorf("%s: run records left: %v", what, recs)
	}
}

// runRun runs `colabdash run` in-process with the emulator's flags before
// args (after a "--" they would be the script's).
func (e *verbEnv) runRun(args ...string) (int, string, string) {
	e.t.Helper()
	return e.run(append(append([]string{"run"}, e.flags...), args...)...)
}

// A script's outcome is its exit code, its output is ours, and the
// runtime the run created is gone afterwards whatever the outcome;
// --keep leaves exactly that one.
func TestRunScriptOutcomes(t *testing.T) {
	e := emptyVerbEnv(t)
	dir := t.TempDir()
	script := func(name, code string) string { return writeFile(t, filepath.Join(dir, name), code) }

	code, out, errs := e.runRun("--spec", "CPU", script("ok.py", "print('hello')\nprint('careful', file=sys.stderr)\n"), "--", "a b", "c")
	if code != 0 || out != "hello\n" || !strings.Contains(errs, "careful\n") || !strings.Contains(errs, "deleted runtime run-") {
		t.Errorf("success: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	noRuntimeLeft(t, e, "success")

	code, out, errs = e.runRun("--spec", "CPU", script("raise.py", "print(1)\nraise ValueError('nope')\n"))
	if code != 1 || out != "1\n" || !strings.Contains(errs, "ValueError: nope") || !strings.Contains(errs, "raise ValueError('nope')") {
		t.Errorf("exception: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	noRuntimeLeft(t, e, "exception")

	code, out, errs = e.runRun("--spec", "CPU", script("exit.py", "import sys\nprint('bye')\nsys.exit(3)\n"))
	if code != 3 || out != "bye\n" || strings.Contains(errs, "SystemExit") || strings.Contains(errs, "To exit") {
		t.Errorf("sys.exit(3): exit %d, stdout %q, stderr %q", code, out, errs)
	}
	noRuntimeLeft(t, e, "sys.exit(3)")

	code, out, errs = e.runRun("--spec", "CPU", script("msg.py", "sys.exit('bad input')\n"))
	if code != 1 || !strings.Contains(errs, "bad input\n") {
		t.Errorf("sys.exit('bad input'): exit %d, stdout %q, stderr %q", code, out, errs)
	}

	code, out, errs = e.runRun("--spec", "CPU", "--keep", "--json", script("keep.py", "print('kept')\n"))
	var rep runcmd.Report
	mustJSON(t, out, &rep)
	rts := e.srv.Runtimes()
	if code != 0 || len(rts) != 1 || string(rep.Runtime) != rts[0].Name || !rep.OK || !rep.Created || rep.Deleted || !rep.Kept ||
		rep.Stdout != "kept\n" || rep.ExitCode != 0 || !strings.Contains(errs, "colabdash delete "+rts[0].ID()) {
		t.Fatalf("--keep --json: exit %d, %d runtimes, %+v, stderr %q", code, len(rts), rep, errs)
	}
	if recs := runRecords(t); len(recs) != 0 {
		t.Errorf("--keep left run records %v: the kept runtime would be offered for deletion", recs)
	}
}

// --timeout ends a run that would go on and deletes its runtime (even
// with --keep: it is the cost guard); the exit code is 124.
func TestRunTimeout(t *testing.T) {
	e := emptyVerbEnv(t)
	f := writeFile(t, filepath.Join(t.TempDir(), "long.py"), "time.sleep(600)\n")
	start := time.Now()
	code, _, errs := e.runRun("--spec", "CPU", "--keep", "--timeout", "500ms", f)
	if code != runcmd.ExitRunTimeout || !strings.Contains(errs, "--timeout reached") || time.Since(start) > waitTimeout {
		t.Errorf("--timeout: exit %d, stderr %q", code, errs)
	}
	noRuntimeLeft(t, e, "--timeout")
}

// A notebook runs cell by cell in one session: the executed notebook has
// every code cell's outputs and count, markdown untouched; the first
// failing cell stops the run, is named, and the cells after it have no
// outputs.
func TestRunNotebook(t *testing.T) {
	e := emptyVerbEnv(t)
	dir := t.TempDir()
	nb := `{"nbformat": 4, "nbformat_minor": 5, "metadata": {"kernelspec": {"name": "python3"}},
 "cells": [
  {"cell_type": "markdown", "metadata": {}, "source": ["# Title"]},
  {"cell_type": "code", "metadata": {"tags": ["x"]}, "execution_count": 9, "outputs": [{"output_type": "stream", "name": "stdout", "text": ["stale"]}], "source": ["print('one')\n", "print('two')"]},
  {"cell_type": "code", "metadata": {}, "execution_count": null, "outputs": [], "source": "6*7"}
 ]}`
	path := writeFile(t, filepath.Join(dir, "nb.ipynb"), nb)
	code, _, errs := e.runRun("--spec", "CPU", path)
	if code != 0 || !strings.Contains(errs, "[1/2] cell 2 ok") || !strings.Contains(errs, "[2/2] cell 3 ok") || strings.Contains(errs, "code cell") {
		t.Fatalf("notebook: exit %d, stderr %q", code, errs)
	}
	noRuntimeLeft(t, e, "notebook")
	var got struct {
		Metadata map[string]any
		Cells    []struct {
			CellType       string `json:"cell_type"`
			Metadata       map[string]any
			ExecutionCount *int `json:"execution_count"`
			Outputs        []struct {
				OutputType string `json:"output_type"`
				Name       string
				Text       []string
				Data       map[string][]string
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "nb.out.ipynb"))
	if err != nil || json.Unmarshal(b, &got) != nil || len(got.Cells) != 3 {
		t.Fatalf("nb.out.ipynb: %v\n%s", err, b)
	}
	c1, c2 := got.Cells[1], got.Cells[2]
	if got.Cells[0].CellType != "markdown" || got.Metadata["kernelspec"] == nil || c1.Metadata["tags"] == nil ||
		len(c1.Outputs) != 1 || strings.Join(c1.Outputs[0].Text, "") != "one\ntwo\n" || c1.Outputs[0].Name != "stdout" ||
		c1.ExecutionCount == nil || c2.ExecutionCount == nil || *c2.ExecutionCount != *c1.ExecutionCount+1 ||
		len(c2.Outputs) != 1 || c2.Outputs[0].OutputType != "execute_result" || strings.Join(c2.Outputs[0].Data["text/plain"], "") != "42" {
		t.Errorf("executed notebook:\n%s", b)
	}

	failing := strings.Replace(nb, `"source": ["print('one')\n", "print('two')"]`, `"source": "print('before')\nraise KeyError('k')"`, 1)
	path = writeFile(t, filepath.Join(dir, "bad.ipynb"), failing)
	out := filepath.Join(dir, "result.ipynb")
	code, _, errs = e.runRun("--spec", "CPU", "--notebook-out", out, path)
	// The exception is said once: by the traceback, not again by the
	// progress line.
	if code != 1 || !regexp.MustCompile(`\[1/2\] cell 2 failed after [0-9]+(ms|s)\n`).MatchString(errs) || !strings.Contains(errs, "KeyError: k") || strings.Contains(errs, "cell 3") {
		t.Errorf("failing notebook: exit %d, stderr %q", code, errs)
	}
	noRuntimeLeft(t, e, "failing notebook")
	b, _ = os.ReadFile(out)
	if !strings.Contains(string(b), `"output_type": "error"`) || !strings.Contains(string(b), `"before\n"`) || strings.Count(string(b), `"outputs": []`) != 1 {
		t.Errorf("the failed run's notebook:\n%s", b)
	}
}

// Uploads are in /content before the run; downloads come back after it,
// also after a failure; a missing one is a warning. --runtime uses a
// runtime that stays, and closes the session it opened.
func TestRunFilesAndExistingRuntime(t *testing.T) {
	e := demoVerbEnv(t)
	dir := t.TempDir()
	data := writeFile(t, filepath.Join(dir, "data.csv"), "a,b\n1,2\n")
	f := writeFile(t, filepath.Join(dir, "fail.py"), "raise RuntimeError('late')\n")
	back := filepath.Join(dir, "back")
	if err := os.Mkdir(back, 0o700); err != nil {
		t.Fatal(err)
	}
	before := len(e.srv.Runtimes())
	sessions := len(e.srv.Sessions("runtimes/rt-t4demo7k2"))
	code, out, errs := e.runRun("--runtime", "rt-t4", "--upload", data, "--download", "data.csv:"+back+"/",
		"--download", "/content/nothing.bin", "--json", f)
	var rep runcmd.Report
	mustJSON(t, out, &rep)
	if code != 1 || rep.Created || rep.Deleted || len(rep.Files) != 2 || len(rep.Missing) != 1 || rep.Missing[0] != "/content/nothing.bin" ||
		!strings.Contains(errs, "--download /content/nothing.bin: not on the runtime, nothing copied") {
		t.Fatalf("exit %d, %+v, stderr %q", code, rep, errs)
	}
	if b, err := os.ReadFile(filepath.Join(back, "data.csv")); err != nil || string(b) != "a,b\n1,2\n" {
		t.Errorf("downloaded after the failure: %q, %v", b, err)
	}
	if n := len(e.srv.Runtimes()); n != before {
		t.Errorf("--runtime: %d runtimes, had %d", n, before)
	}
	if n := len(e.srv.Sessions("runtimes/rt-t4demo7k2")); n != sessions {
		t.Errorf("--runtime: %d sessions after the run, %d before: the run's was not closed", n, sessions)
	}
	code, _, errs = e.runRun("--runtime", "rt-t4", "--keep", f)
	if code != kit.ExitUsage || !strings.Contains(errs, "--keep needs --spec") {
		t.Errorf("--keep with --runtime: exit %d %q", code, errs)
	}
}

// startRun starts the real binary on a long script and returns it once it
// says the script runs (stderr, read as it comes), with its stderr so far.
func startLongRun(t *testing.T, e *verbEnv, bin string) (*exec.Cmd, func() string) {
	t.Helper()
	return startRunUntil(t, e, bin, "running long.py on ")
}

// startRunUntil is startLongRun returning once stderr has a line holding
// until.
func startRunUntil(t *testing.T, e *verbEnv, bin, until string) (*exec.Cmd, func() string) {
	t.Helper()
	f := writeFile(t, filepath.Join(t.TempDir(), "long.py"), "print('start')\ntime.sleep(600)\n")
	cmd := exec.Command(bin, append(append([]string{"run"}, e.flags...), "--spec", "CPU", f)...)
	// A pipe of the test's own, not StderrPipe: Wait closes that one as
	// soon as the process has exited, and the last lines (the interrupted
	// run's) could still be unread. The reader gets them all up to EOF,
	// which comes when the process (the pipe's last writer) is gone.
	pipe, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = w
	err = cmd.Start()
	w.Close()
	if err != nil {
		pipe.Close()
		t.Fatal(err)
	}
	var (
		buf  testkit.SyncBuffer
		seen = make(chan struct{})
		eof  = make(chan struct{})
		once sync.Once
	)
	go func() {
		defer close(eof)
		defer pipe.Close()
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			buf.Write([]byte(sc.Text() + "\n"))
			if strings.Contains(sc.Text(), until) {
				once.Do(func() { close(seen) })
			}
		}
	}()
	// Once Wait has returned, stderr is whole when the reader is at EOF.
	stderr := func() string {
		if cmd.ProcessState != nil {
			select {
			case <-eof:
			case <-time.After(waitTimeout):
			}
		}
		return buf.String()
	}
	select {
	case <-seen:
	case <-time.After(waitTimeout):
		cmd.Process.Kill()
		t.Fatalf("the run never started: %q", stderr())
	}
	return cmd, stderr
}

// The real binary: SIGINT, SIGTERM and SIGHUP in the middle of a run end
// it with 128+n and delete its runtime.
func TestRunSignalsDeleteTheRuntime(t *testing.T) {
	bin := needBinary(t)
	e := emptyVerbEnv(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		cmd, stderr := startLongRun(t, e, bin)
		if n := len(e.srv.Runtimes()); n != 1 {
			t.Fatalf("%v: %d runtimes while the run runs", sig, n)
		}
		cmd.Process.Signal(sig)
		if code := waitExit(t, "the run ended by "+sig.String(), cmd, stderr); code != 128+int(sig) || !strings.Contains(stderr(), "deleted runtime run-") {
			t.Errorf("%v: exit %d, stderr %q", sig, code, stderr())
		}
		noRuntimeLeft(t, e, sig.String())
	}
}

// kill -9 leaves the runtime, but not silently: status says a run that
// did not finish left it, and run --reap deletes it.
func TestRunKilledThenReaped(t *testing.T) {
	bin := needBinary(t)
	e := emptyVerbEnv(t)
	cmd, _ := startLongRun(t, e, bin)
	code, _, errs := e.run(append([]string{"status"}, e.flags...)...)
	if code != 0 || strings.Contains(errs, "did not finish") {
		t.Errorf("status while the run lives: exit %d, stderr %q (a live run is no leftover)", code, errs)
	}
	cmd.Process.Kill()
	cmd.Wait()
	rts := e.srv.Runtimes()
	if len(rts) != 1 {
		t.Fatalf("after kill -9: %d runtimes", len(rts))
	}
	code, _, errs = e.run(append([]string{"status"}, e.flags...)...)
	if code != 0 || !strings.Contains(errs, "runtime "+rts[0].ID()+" (CPU/STANDARD) was created by a run that did not finish (long.py") ||
		!strings.Contains(errs, "colabdash run --reap") {
		t.Errorf("status after kill -9: exit %d, stderr %q", code, errs)
	}
	// The next run says so too; off a terminal it deletes nothing, on one
	// y or yes deletes.
	quick := writeFile(t, filepath.Join(t.TempDir(), "quick.py"), "print(1)\n")
	code, _, errs = e.runRun("--runtime", rts[0].ID(), quick)
	if code != 0 || !strings.Contains(errs, "was created by a run that did not finish") || len(e.srv.Runtimes()) != 1 {
		t.Errorf("run off a terminal with a leftover: exit %d, stderr %q", code, errs)
	}
	code, _, errs = e.runTerm(term{in: "no\n", inTTY: true, errTTY: true}, append(append([]string{"run"}, e.flags...), "--runtime", rts[0].ID(), quick)...)
	if code != 0 || !strings.Contains(errs, "Delete it? Type y") || !strings.Contains(errs, "kept "+rts[0].ID()) || len(e.srv.Runtimes()) != 1 {
		t.Errorf("run on a terminal, answered no: exit %d, stderr %q", code, errs)
	}
	code, _, errs = e.runTerm(term{in: "y\n", inTTY: true, errTTY: true}, append(append([]string{"run"}, e.flags...), "--spec", "CPU", quick)...)
	if code != 0 || !strings.Contains(errs, "deleted "+rts[0].ID()+", left by an unfinished run") {
		t.Errorf("run on a terminal, answered y: exit %d, stderr %q", code, errs)
	}
	noRuntimeLeft(t, e, "kill -9, then y at the next run")

	cmd, _ = startLongRun(t, e, bin)
	cmd.Process.Kill()
	cmd.Wait()
	rts = e.srv.Runtimes()
	code, _, errs = e.runRun("--reap", "--yes")
	if code != 0 || len(rts) != 1 || !strings.Contains(errs, "deleted "+rts[0].ID()+", left by an unfinished run") {
		t.Errorf("run --reap: exit %d, stderr %q", code, errs)
	}
	noRuntimeLeft(t, e, "kill -9, then run --reap")
	code, _, errs = e.runRun("--reap", "--yes")
	if code != 0 || !strings.Contains(errs, "no runtime left by an unfinished run") {
		t.Errorf("run --reap again: exit %d, stderr %q", code, errs)
	}
}

// ctrl+c while Colab is still creating the runtime: the identical create
// is re-sent to learn what Colab made, and that is deleted.
func TestRunInterruptedWhileCreating(t *testing.T) {
	bin := needBinary(t)
	e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedEmpty, CreateDelay: 2 * time.Second})
	cmd, stderr := startRunUntil(t, e, bin, "creating runtime run-")
	cmd.Process.Signal(syscall.SIGINT)
	if code := waitExit(t, "the run ctrl+c ended while creating", cmd, stderr); code != 130 || !strings.Contains(stderr(), "interrupted (interrupt) while creating the runtime") {
		t.Errorf("exit %d, stderr %q", code, stderr())
	}
	if !strings.Contains(stderr(), "deleted runtime run-") || e.srv.RuntimesCreated() != 1 {
		t.Errorf("the runtime Colab went on creating was not deleted (%d created): %q", e.srv.RuntimesCreated(), stderr())
	}
	noRuntimeLeft(t, e, "ctrl+c while creating")
}

// A reader of stdout that went away (colabdash run … | head -0) does not
// kill the run before it deletes its runtime: SIGPIPE is ignored.
func TestRunStdoutClosedStillDeletes(t *testing.T) {
	bin := needBinary(t)
	e := emptyVerbEnv(t)
	f := writeFile(t, filepath.Join(t.TempDir(), "loud.py"), "for i in range(100): print('line')\n")
	cmd := exec.Command(bin, append(append([]string{"run"}, e.flags...), "--spec", "CPU", f)...)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // nobody reads stdout
	cmd.Stdout = w
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	cmd.Wait()
	if st := cmd.ProcessState; !strings.Contains(errb.String(), "deleted runtime run-") || st.Sys().(syscall.WaitStatus).Signaled() {
		t.Errorf("%v, stderr %q", st, errb.String())
	}
	noRuntimeLeft(t, e, "stdout closed")
}

// A deletion that hangs after ctrl+c is abandoned by a second ctrl+c: the
// run ends at once, says the runtime may be left and how to delete it, and
// keeps its record, so run --reap deletes it later.
func TestRunSecondSignalAbandonsTheDeletion(t *testing.T) {
	bin := needBinary(t)
	e := emptyVerbEnv(t)
	e.holdCalls(colabfake.FaultLatency, "delete_runtime", 0)
	cmd, stderr := startLongRun(t, e, bin)
	cmd.Process.Signal(syscall.SIGINT)
	waitReady(t, cmd, func() string { return "no deletion under way: " + stderr() },
		func() bool { return strings.Contains(stderr(), "a second ctrl+c abandons it") })
	cmd.Process.Signal(syscall.SIGINT)
	code := waitExit(t, "the run after a second ctrl+c", cmd, stderr)
	rts := e.srv.Runtimes()
	if code != 130 || len(rts) != 1 || !strings.Contains(stderr(), "may be left running") ||
		!strings.Contains(stderr(), "colabdash run --reap") || len(runRecords(t)) != 1 {
		t.Fatalf("exit %d, %d runtimes, records %v, stderr %q", code, len(rts), runRecords(t), stderr())
	}
	e.srv.ClearFaults()
	if code, _, errs := e.runRun("--reap", "--yes"); code != 0 || !strings.Contains(errs, "deleted "+rts[0].ID()) {
		t.Errorf("run --reap: exit %d, stderr %q", code, errs)
	}
	noRuntimeLeft(t, e, "abandoned deletion, then run --reap")
}

// run --notebook-out names the executed notebook; --output, its old name,
// still works with one warning on stderr, is hidden from --help, and
// beside the new name is a usage error.
func TestRunNotebookOutAndItsOldName(t *testing.T) {
	e := emptyVerbEnv(t)
	dir := t.TempDir()
	nb := writeFile(t, filepath.Join(dir, "nb.ipynb"), `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
  {"cell_type": "code", "metadata": {}, "execution_count": null, "outputs": [], "source": "print(6*7)"}]}`)
	for _, flag := range []string{"--notebook-out", "--output"} {
		out := filepath.Join(dir, strings.TrimLeft(flag, "-")+".ipynb")
		code, _, errs := e.runRun("--spec", "CPU", flag, out, nb)
		if code != 0 {
			t.Fatalf("%s: exit %d, stderr %q", flag, code, errs)
		}
		if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), `"42\n"`) {
			t.Errorf("%s: the executed notebook: %v %s", flag, err, b)
		}
		warned := strings.Count(errs, "--output is deprecated and will be removed; use --notebook-out FILE")
		if want := map[bool]int{true: 1, false: 0}[flag == "--output"]; warned != want {
			t.Errorf("%s: %d deprecation warnings, want %d: %q", flag, warned, want, errs)
		}
	}
	if code, _, errs := e.runRun("--spec", "CPU", "--output", "a.ipynb", "--notebook-out", "b.ipynb", nb); code != 2 || !strings.Contains(errs, "give --notebook-out only") {
		t.Errorf("both names: exit %d, stderr %q", code, errs)
	}
	_, help, _ := runCLI(t, "run", "--help")
	if !strings.Contains(help, "--notebook-out") || strings.Contains(help, "--output") {
		t.Errorf("run --help shows --notebook-out and hides --output:\n%s", help)
	}
}

// Newcomer trial: a run whose create Colab refused (too many active
// runtimes) said "deleted runtime run-…", as if one had been made and
// billed, and its hint "colabdash delete RUNTIME" lacked the flags that
// reach this server. Now nothing is said deleted, no run record is left,
// and every command it prints carries --endpoint.
func TestRunRefusedCreateDeletesNothing(t *testing.T) {
	e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedDemo, RuntimeLimit: 3})
	script := writeFile(t, filepath.Join(t.TempDir(), "job.py"), "print('x')\n")
	code, _, errs := e.run(append([]string{"run", "--spec", "CPU", script}, e.flags...)...)
	if code != kit.ExitQuota {
		t.Fatalf("exit %d, want %d (quota); stderr %q", code, kit.ExitQuota, errs)
	}
	if strings.Contains(errs, "deleted runtime") || strings.Contains(errs, "deleting runtime") {
		t.Errorf("a refused create is reported deleted: %q", errs)
	}
	if !strings.Contains(errs, "colabdash delete RUNTIME --endpoint ") {
		t.Errorf("the delete hint does not reach this server: %q", errs)
	}
	runs, _ := os.ReadDir(filepath.Join(e.home, "state", "colabdash", "runs"))
	if len(runs) != 0 {
		t.Errorf("run records left after a refused create: %v", runs)
	}
}
