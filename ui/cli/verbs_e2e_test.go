package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
)

// The end-to-end script, run as a script would: the real binary
// against `colabdash emulator`, no terminal, checking every output and
// exit code: create --wait → exec -c 'print(6*7)' → cp up and back
// → delete --yes.
func TestE2EScriptCreateExecDelete(t *testing.T) {
	bin, endpoint, tok := emulatorCLI(t, "--create-delay", "300ms")
	sh := func(args ...string) (int, string, string) {
		t.Helper()
		cmd := exec.Command(bin, append(args, "--endpoint", endpoint, "--access-token-file", tok)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb // pipes: not a terminal; stdin is /dev/null
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("%v: %v", args, err)
		}
		return cmd.ProcessState.ExitCode(), out.String(), errb.String()
	}

	// create --wait --json: one JSON document on stdout, the requestId on stderr.
	code, out, errs := sh("create", "--spec", "CPU/STANDARD", "--wait", "--json")
	var rt struct {
		Name           string
		RequestID      string
		ConnectionInfo struct{ URL string }
		Sessions       []any
	}
	if code != 0 || json.Unmarshal([]byte(out), &rt) != nil {
		t.Fatalf("create: exit %d\n%s\n%s", code, out, errs)
	}
	id := strings.TrimPrefix(rt.Name, "runtimes/")
	if !strings.HasPrefix(rt.Name, "runtimes/rt-") || rt.ConnectionInfo.URL == "" || rt.Sessions == nil ||
		!strings.Contains(errs, "requestId "+rt.RequestID) || strings.Count(errs, "\n") != 1 {
		t.Fatalf("create: %+v\nstderr %q", rt, errs)
	}

	// exec: the program's output, exactly; the new session kept (--keep) on stderr.
	code, out, errs = sh("exec", id, "--keep", "-c", "print(6*7)")
	m := regexp.MustCompile(`^colabdash: exec: opened session (` + id + `/colabdash-[0-9a-f]{8}); it stays open after exec \(--keep\)`).FindStringSubmatch(errs)
	if code != 0 || out != "42\n" || m == nil || strings.Count(errs, "\n") != 1 {
		t.Fatalf("exec: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, errs = sh("exec", m[1], "-c", `raise ValueError("nope")`)
	if code != 1 || out != "" || !strings.Contains(errs, "ValueError: nope") {
		t.Fatalf("exec raising: exit %d, stdout %q, stderr %q", code, out, errs)
	}

	// cp up and back through the runtime proxy.
	dir := t.TempDir()
	local := writeFile(t, filepath.Join(dir, "up.txt"), "colabdash e2e\n")
	if code, out, errs = sh("cp", local, id+":/content/up.txt"); code != 0 {
		t.Fatalf("cp up: exit %d %q %q", code, out, errs)
	}
	back := filepath.Join(dir, "back.txt")
	if code, out, errs = sh("cp", id+":/content/up.txt", back); code != 0 {
		t.Fatalf("cp down: exit %d %q %q", code, out, errs)
	}
	if b, _ := os.ReadFile(back); string(b) != "colabdash e2e\n" {
		t.Fatalf("cp round trip: %q", b)
	}

	// delete without a terminal needs --yes; nothing is deleted without it.
	code, out, errs = sh("delete", id)
	if code != 2 || out != "" || !strings.Contains(errs, "pass --yes") {
		t.Fatalf("delete without --yes: exit %d %q %q", code, out, errs)
	}
	code, out, errs = sh("delete", id, "--yes")
	if code != 0 || out != "deleted "+id+"\n" || errs != "" {
		t.Fatalf("delete --yes: exit %d %q %q", code, out, errs)
	}
	code, out, errs = sh("status", "--json")
	if code != 0 || !strings.Contains(out, `"runtimes": []`) {
		t.Fatalf("status after delete: exit %d %q %q", code, out, errs)
	}
	code, out, errs = sh("exec", id, "-c", "print(1)")
	if code != 6 || out != "" || !strings.Contains(errs, `no runtime "`+id+`" (no runtimes are live)`) {
		t.Fatalf("exec on the deleted runtime: exit %d %q %q", code, out, errs)
	}
}

// On a real terminal: delete asks and only y deletes; token refuses to
// print to the terminal; exec's ctrl+c asks to stop or detach.
func TestVerbsOnATerminal(t *testing.T) {
	bin := needBinary(t)
	e := demoVerbEnv(t)
	e.holdCalls(colabfake.FaultDeadline, "execute_code", 0) // exec's call waits until the test ends
	flags := strings.Join(e.flags, " ")
	s := e.shellInTmux(bin+" token rt-t4 "+flags, "echo TOKEN_EXIT=$?",
		bin+" delete rt-cpu "+flags, "echo DELETE_EXIT=$?",
		bin+" exec rt-t4 --keep -c \"print(1)\" "+flags, "echo EXEC_EXIT=$?")
	scr := s.waitText("Type y to delete")
	if !strings.Contains(scr, "refusing to print a proxy token (a secret) to a terminal") || !strings.Contains(scr, "TOKEN_EXIT=2") ||
		!strings.Contains(scr, "rt-cpudemo4qx  CPU/STANDARD") {
		t.Fatalf("screen:\n%s", scr)
	}
	s.keys("y", "Enter")
	scr = s.waitText("DELETE_EXIT=")
	if !strings.Contains(scr, "deleted rt-cpudemo4qx") || !strings.Contains(scr, "DELETE_EXIT=0") || len(e.srv.Runtimes()) != 2 {
		t.Fatalf("after y:\n%s", scr)
	}
	s.waitText("ctrl+c interrupts the kernel")
	s.keys("C-c") // the first interrupts the kernel, which the held call ignores
	s.waitText("interrupted the kernel; waiting")
	s.keys("C-c")
	s.waitText("Stop the code (s: closes session")
	s.keys("d", "Enter")
	scr = s.waitText("EXEC_EXIT=")
	if !strings.Contains(scr, "detached; the code may still be running") || !strings.Contains(scr, "EXEC_EXIT=130") {
		t.Fatalf("after ctrl+c, d:\n%s", scr)
	}
}
