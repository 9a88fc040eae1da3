package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/files"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// filesVerbEnv is a verbEnv with runtime rt-files on an emulator
// started with o.
func filesVerbEnv(t *testing.T, o colabfake.Options) *verbEnv {
	t.Helper()
	o.Seed = colabfake.SeedEmpty
	e := newVerbEnv(t, o)
	if _, err := e.srv.AddRuntime(api.Runtime{Name: "runtimes/rt-files", ConnectionInfo: &api.ConnectionInfo{}}); err != nil {
		t.Fatal(err)
	}
	return e
}

// A replaced or removed file may stay in the server's trash, through the
// CLI on an emulator with --delete-to-trash:
// rm says nothing of it (success is quiet); rm --purge asks (only y confirms), refuses without a terminal
// unless --yes, and empties the trash so the disk use drops.
func TestRmPurgeEmptiesTheTrash(t *testing.T) {
	e := filesVerbEnv(t, colabfake.Options{DeleteToTrash: true})
	big := writeFile(t, filepath.Join(t.TempDir(), "big.bin"), strings.Repeat("x", 1<<20))
	if code, _, errs := e.run("cp", big, "rt-files:/content/a.bin"); code != 0 {
		t.Fatalf("cp: %d %s", code, errs)
	}
	before := e.srv.DiskUsage("rt-files")
	code, out, errs := e.run("rm", "rt-files:/content/a.bin")
	if code != 0 || !strings.Contains(out, "removed rt-files:/content/a.bin") {
		t.Fatalf("rm: exit %d %q %q", code, out, errs)
	}
	if errs != "" {
		t.Errorf("rm's stderr %q: want none (success is quiet; rm --help explains the trash)", errs)
	}
	if after := e.srv.DiskUsage("rt-files"); after < before {
		t.Errorf("disk use dropped (%d → %d) although the trash keeps the file", before, after)
	}

	// Off a terminal, --purge needs --yes, and nothing is removed.
	e.run("cp", big, "rt-files:/content/b.bin")
	if code, _, errs := e.run("rm", "--purge", "rt-files:/content/b.bin"); code != kit.ExitUsage || !strings.Contains(errs, "--yes") {
		t.Errorf("rm --purge without a terminal: exit %d %q, want 2 asking for --yes", code, errs)
	}
	if code, _, _ := e.run("ls", "rt-files:/content/b.bin"); code != 0 {
		t.Error("rm --purge refused without a terminal, yet removed the file")
	}
	// On a terminal, anything but y or yes keeps the trash.
	tty := term{in: "nope\n", inTTY: true, errTTY: true}
	if code, _, errs := e.runTerm(tty, "rm", "--purge", "rt-files:/content/b.bin"); code != 0 || !strings.Contains(errs, "Empty the trash") || !strings.Contains(errs, "not emptied") {
		t.Errorf("rm --purge answered \"nope\": exit %d %q, want the question and the trash kept", code, errs)
	}
	if n := len(e.srv.TrashNames("rt-files")); n != 2 {
		t.Errorf("trash holds %d entries after a declined purge, want 2", n)
	}
	// y empties it.
	e.run("cp", big, "rt-files:/content/c.bin")
	tty.in = "y\n"
	code, out, errs = e.runTerm(tty, "rm", "--purge", "rt-files:/content/c.bin")
	if code != 0 || !strings.Contains(out, "emptied the trash of rt-files's Jupyter server") {
		t.Fatalf("rm --purge answered y: exit %d %q %q", code, out, errs)
	}
	if n := len(e.srv.TrashNames("rt-files")); n != 0 {
		t.Errorf("trash holds %d entries after the purge", n)
	}
	if after := e.srv.DiskUsage("rt-files"); after >= before {
		t.Errorf("disk use %d after the purge, want below %d", after, before)
	}
	// rm --purge RUNTIME --yes --json: only the trash, one document.
	e.run("cp", big, "rt-files:/content/d.bin")
	e.run("rm", "rt-files:/content/d.bin")
	code, out, errs = e.run("rm", "--purge", "rt-files", "--yes", "--json")
	var rep files.RmReport
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || !rep.OK || rep.PurgedBytes == nil || *rep.PurgedBytes < 1<<20 {
		t.Fatalf("rm --purge RUNTIME --yes --json: exit %d %q %q", code, out, errs)
	}
}

// A cp that replaces a file in one request sends no DELETE and says
// nothing of a trash; a chunked replace says it once.
func TestCpReplaceTrashNote(t *testing.T) {
	e := filesVerbEnv(t, colabfake.Options{DeleteToTrash: true})
	small := writeFile(t, filepath.Join(t.TempDir(), "s.txt"), "small")
	for i := 0; i < 2; i++ {
		if code, _, errs := e.run("cp", small, "rt-files:/content/s.txt"); code != 0 || strings.Contains(errs, "trash") {
			t.Fatalf("cp #%d: exit %d %q, want no trash note", i, code, errs)
		}
	}
	if n := len(e.srv.TrashNames("rt-files")); n != 0 {
		t.Errorf("a one-request replace put %d entries in the trash", n)
	}
}

// Through cp -r, an entry listed but answered with
// Jupyter's HTML 404 is skipped with a warning naming it, the rest is
// copied, exit 1, and no advice to resume.
func TestCpRecursiveSkipsVanishedEntry(t *testing.T) {
	e := filesVerbEnv(t, colabfake.Options{})
	dir := t.TempDir()
	for _, n := range []string{"a.txt", "b.txt"} {
		writeFile(t, filepath.Join(dir, "src", n), n)
	}
	if code, _, errs := e.run("cp", "-r", filepath.Join(dir, "src"), "rt-files:/content/src"); code != 0 {
		t.Fatalf("cp -r up: %d %s", code, errs)
	}
	e.srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, PathPrefix: "files/content/src/b.txt", Status: 404, ContentType: "text/html",
		Body: "<!DOCTYPE HTML>\n<html><head><title>Jupyter Server</title></head><body><h1>404 : Not Found</h1><p>You are requesting a page that does not exist!</p></body></html>", Times: -1})
	out := filepath.Join(dir, "out")
	code, stdout, errs := e.run("cp", "-r", "rt-files:/content/src", out)
	if code != kit.ExitFailure {
		t.Fatalf("cp -r with a vanished entry: exit %d %q %q, want 1", code, stdout, errs)
	}
	if !strings.Contains(errs, "skipped rt-files:/content/src/b.txt") || strings.Contains(errs, "resume") {
		t.Errorf("stderr %q: want a warning naming b.txt and no resume advice", errs)
	}
	if b, err := os.ReadFile(filepath.Join(out, "a.txt")); err != nil || string(b) != "a.txt" {
		t.Errorf("a.txt was not copied: %q %v", b, err)
	}
}

// `colabdash emulator --delete-to-trash --proxy-max-body N` reach the
// emulator: rm's files land in the runtime's trash (rm --purge then
// frees their bytes), and an upload whose smallest piece is over N is
// refused with the proxy's 413 in words.
func TestEmulatorTrashAndBodyLimitFlags(t *testing.T) {
	_, endpoint, tok := emulatorCLI(t, "--runtimes", "1", "--delete-to-trash", "--proxy-max-body", "500000")
	flags := []string{"--endpoint", endpoint, "--access-token-file", tok}
	cli := cliWith(t, flags)
	small := writeFile(t, filepath.Join(t.TempDir(), "small.txt"), strings.Repeat("s", 4000))
	if code, _, errs := cli("cp", small, "rt-load00001:/content/small.txt"); code != 0 {
		t.Fatalf("cp: %d %q", code, errs)
	}
	if code, _, errs := cli("rm", "rt-load00001:/content/small.txt"); code != 0 || errs != "" {
		t.Fatalf("rm: %d %q", code, errs)
	}
	code, out, errs := cli("rm", "--purge", "rt-load00001", "--yes", "--json")
	var rep files.RmReport
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.PurgedBytes == nil || *rep.PurgedBytes < 4000 {
		t.Fatalf("rm --purge after --delete-to-trash: %d %q %q, want at least 4000 bytes freed", code, out, errs)
	}
	big := writeFile(t, filepath.Join(t.TempDir(), "big.bin"), strings.Repeat("b", 2_000_000))
	code, _, errs = cli("cp", big, "rt-load00001:/content/big.bin")
	if code != kit.ExitAPI || !strings.Contains(errs, "a proxy between this machine and the runtime refused a") || !strings.Contains(errs, "even in pieces of 1.0 MB") {
		t.Errorf("cp behind --proxy-max-body 500000: exit %d %q", code, errs)
	}
}

// Field trial: rm --purge ran its code in a new kernel session that it
// left open, so `colabdash sessions` then listed a session "not
// colabdash (a notebook?)" that `session close` refused without
// --force. The purge leaves the runtime's sessions as they were, after
// a purge that worked and after one that failed; a notebook's session
// open before is left alone.
func TestRmPurgeLeavesNoSessionBehind(t *testing.T) {
	e := filesVerbEnv(t, colabfake.Options{DeleteToTrash: true})
	nb, err := e.srv.AddNotebookSession("rt-files", "")
	if err != nil {
		t.Fatal(err)
	}
	sessionsNow := func() []string {
		var names []string
		for _, s := range e.srv.Sessions("rt-files") {
			names = append(names, s.Name)
		}
		return names
	}
	want := []string{nb.Name}
	small := writeFile(t, filepath.Join(t.TempDir(), "f.txt"), "data")
	e.run("cp", small, "rt-files:/content/f.txt")
	if code, out, errs := e.run("rm", "--purge", "--yes", "rt-files:/content/f.txt"); code != 0 || !strings.Contains(out, "emptied the trash") {
		t.Fatalf("rm --purge --yes FILE: exit %d %q %q", code, out, errs)
	}
	if got := sessionsNow(); !slices.Equal(got, want) {
		t.Errorf("sessions after rm --purge FILE: %q, want %q", got, want)
	}
	if code, out, errs := e.run("rm", "--purge", "--yes", "rt-files"); code != 0 || !strings.Contains(out, "emptied the trash") {
		t.Fatalf("rm --purge --yes RUNTIME: exit %d %q %q", code, out, errs)
	}
	if got := sessionsNow(); !slices.Equal(got, want) {
		t.Errorf("sessions after rm --purge RUNTIME: %q, want %q", got, want)
	}
	// The code starts, then the call fails: the session it ran in is
	// closed all the same.
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: api.ToolExecuteCode, Code: api.FailedPrecondition, Message: "the kernel died"})
	if code, _, errs := e.run("rm", "--purge", "--yes", "rt-files"); code == 0 {
		t.Fatalf("rm --purge with execute_code failing: exit 0 %q", errs)
	}
	if got := sessionsNow(); !slices.Equal(got, want) {
		t.Errorf("sessions after a failed rm --purge: %q, want %q", got, want)
	}
}
