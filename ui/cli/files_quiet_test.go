package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/files"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// stdout belongs to the data: cp says nothing there, so cp RT:x
// /dev/stdout >> log (or cp RT:x -) adds the file's bytes alone. Off a
// terminal a successful cp is quiet on both streams; on a terminal each
// file copied is one line on stderr, with the progress bar.
func TestCpSaysNothingOnStdout(t *testing.T) {
	e := filesVerbEnv(t, colabfake.Options{})
	src := writeFile(t, filepath.Join(t.TempDir(), "x.log"), "line1\nline2\n")
	if code, out, errs := e.run("cp", src, "rt-files:"); code != 0 || out != "" || errs != "" {
		t.Fatalf("cp up off a terminal: exit %d, stdout %q, stderr %q; want quiet", code, out, errs)
	}
	code, out, errs := e.runTerm(term{errTTY: true}, "cp", src, "rt-files:/content/y.log")
	if code != 0 || out != "" || !strings.Contains(errs, "→ rt-files:/content/y.log (12 B)") {
		t.Fatalf("cp up on a terminal: exit %d, stdout %q, stderr %q; want the line on stderr", code, out, errs)
	}
	// "-" is stdout: the bytes alone, whatever stderr is.
	for _, tm := range []term{{}, {errTTY: true}} {
		code, out, errs := e.runTerm(tm, "cp", "rt-files:x.log", "-")
		if code != 0 || out != "line1\nline2\n" {
			t.Fatalf("cp RT:x.log - (stderr a terminal: %v): exit %d, stdout %q, stderr %q; want the file's bytes alone", tm.errTTY, code, out, errs)
		}
	}
	dir := t.TempDir()
	t.Chdir(dir)
	if _, err := os.Lstat(filepath.Join(dir, "-")); err == nil {
		t.Fatal("cp RT:x - wrote a local file named -")
	}
	// "-" as the source is refused in one line; -r to stdout too.
	for _, args := range [][]string{{"cp", "-", "rt-files:"}, {"cp", "-r", "rt-files:", "-"}} {
		if code, _, errs := e.run(args...); code != kit.ExitUsage || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "(-)") {
			t.Errorf("%q: exit %d %q, want one line refusing -", args, code, errs)
		}
	}
}

// A successful rm or cp -r says nothing beyond what it did: no note of
// the server's trash (rm --help explains it), no warning of hidden
// names a downloaded tree does not hold; when it holds some, how many.
func TestFileVerbsSuccessIsQuiet(t *testing.T) {
	files := t.TempDir()
	e := filesVerbEnv(t, colabfake.Options{DeleteToTrash: true, FilesDir: files})
	proj := filepath.Join(t.TempDir(), "proj")
	writeFile(t, filepath.Join(proj, "a.txt"), "a")
	writeFile(t, filepath.Join(proj, "sub", "b.txt"), "b")
	if code, _, errs := e.run("cp", "-r", proj, "rt-files:"); code != 0 || errs != "" {
		t.Fatalf("cp -r up: exit %d %q", code, errs)
	}
	if code, out, errs := e.run("cp", "-r", "rt-files:proj", filepath.Join(t.TempDir(), "out")); code != 0 || out != "" || errs != "" {
		t.Errorf("cp -r down of a tree without hidden names: exit %d, stdout %q, stderr %q; want quiet", code, out, errs)
	}
	writeFile(t, filepath.Join(files, "rt-files", "content", "proj", ".env"), "e")
	writeFile(t, filepath.Join(files, "rt-files", "content", "proj", ".git", "HEAD"), "h")
	if code, _, errs := e.run("cp", "-r", "rt-files:proj", filepath.Join(t.TempDir(), "out")); code != 0 || !strings.Contains(errs, "warning: 2 hidden names in /content/proj not copied") {
		t.Errorf("cp -r down of a tree with 2 hidden names: exit %d, stderr %q; want a warning counting them", code, errs)
	}
	code, out, errs := e.run("rm", "-r", "rt-files:proj")
	if code != 0 || out != "removed rt-files:/content/proj\n" || errs != "" {
		t.Errorf("rm -r: exit %d, stdout %q, stderr %q; want the path removed and no note", code, out, errs)
	}
}

// A file copied into a remote directory that does not exist is told how
// to get one (exit 6); a runtime id typed without its colon is asked
// about ("did you mean rt-abc12: ?"), a plain local name is not.
func TestCpFailuresSayTheFix(t *testing.T) {
	e := filesVerbEnv(t, colabfake.Options{})
	job := writeFile(t, filepath.Join(t.TempDir(), "job.py"), "print(1)\n")
	code, _, errs := e.run("cp", job, "rt-files:nodir/job.py")
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	if code != kit.ExitNotFound || len(lines) != 2 || !strings.Contains(lines[0], "does not exist") ||
		!strings.Contains(lines[1], "fix: cp does not create directories") || !strings.Contains(lines[1], "cp -r DIR") {
		t.Errorf("cp into a missing remote directory: exit %d %q, want exit 6 and a fix line", code, errs)
	}
	t.Chdir(t.TempDir())
	if code, _, errs := e.run("cp", job, "rt-abc12"); code != kit.ExitUsage || !strings.Contains(errs, "did you mean rt-abc12: ?") {
		t.Errorf("cp FILE rt-abc12: exit %d %q, want the colon suggested", code, errs)
	}
	if code, _, errs := e.run("cp", job, "out"); code != kit.ExitUsage || strings.Contains(errs, "did you mean") {
		t.Errorf("cp FILE out: exit %d %q, want no suggestion for a plain name", code, errs)
	}
}

// runCopied runs a cp command with --json and returns its exit code, the
// files it copied as "SRC → DST" lines (cp says nothing of them on
// stdout), and stderr.
func runCopied(t *testing.T, args ...string) (code int, copied, stderr string) {
	t.Helper()
	code, out, errs := runCLI(t, append(args, "--json")...)
	var sum files.CopySummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("%q: not one JSON summary: %v\n%s", args, err, out)
	}
	var b strings.Builder
	for _, f := range sum.Files {
		b.WriteString(f.Src + " → " + f.Dst + "\n")
	}
	return code, b.String(), errs
}

// Where the server's trash matters, an upload that failed on a full disk,
// the fix names it and rm --purge.
func TestCpOnAFullDiskNamesThePurge(t *testing.T) {
	e := filesVerbEnv(t, colabfake.Options{})
	e.srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, PathPrefix: "api/contents/content/f.txt", Status: 500, ContentType: "application/json",
		Body: `{"message": "Unexpected error while saving file: content/f.txt [Errno 28] No space left on device", "reason": null}`, Times: -1})
	f := writeFile(t, filepath.Join(t.TempDir(), "f.txt"), "data")
	code, _, errs := e.run("cp", f, "rt-files:f.txt")
	if code == 0 || !strings.Contains(errs, "No space left on device") || !strings.Contains(errs, "colabdash: fix: ") || !strings.Contains(errs, "colabdash rm --purge rt-files") {
		t.Errorf("cp onto a full disk: exit %d %q, want a fix naming rm --purge", code, errs)
	}
}

// `colabdash emulator --seed demo` keeps a trash as Colab's server does:
// the README tour's cp -r then rm -r of a non-empty directory works, and
// rm --purge frees its bytes; --delete-to-trash=false turns it off
// (rm -r is then refused, removing nothing).
func TestEmulatorDemoSeedKeepsATrash(t *testing.T) {
	proj := filepath.Join(t.TempDir(), "proj")
	writeFile(t, filepath.Join(proj, "a.txt"), "a")
	writeFile(t, filepath.Join(proj, "sub", "b.txt"), "b")
	for _, c := range []struct {
		args  []string
		trash bool
	}{{[]string{"--seed", "demo"}, true}, {[]string{"--seed", "demo", "--delete-to-trash=false"}, false}} {
		flags := startEmulatorCmd(t, c.args...)
		cli := cliWith(t, flags)
		if code, _, errs := cli("cp", "-r", proj, "rt-t4demo7k2p:"); code != 0 {
			t.Fatalf("%q: cp -r: exit %d %q", c.args, code, errs)
		}
		code, _, errs := cli("rm", "-r", "rt-t4demo7k2p:proj")
		if c.trash != (code == 0) {
			t.Fatalf("%q: rm -r of a non-empty directory: exit %d %q", c.args, code, errs)
		}
		if !c.trash {
			continue
		}
		code, out, errs := cli("rm", "--purge", "rt-t4demo7k2p", "--yes")
		if code != 0 || !strings.Contains(out, " B freed") || strings.Contains(out, ": 0 B freed") {
			t.Errorf("%q: rm --purge after rm -r: exit %d %q %q, want the bytes removed freed", c.args, code, out, errs)
		}
	}
}

// rm of several paths tries each, as GNU rm does: a path that fails is
// said on its own line and the others are still removed; the exit code is
// 7 (partial) when some were removed, the failure's own when none were;
// --json lists what was removed.
func TestRmTriesEveryPath(t *testing.T) {
	e := filesVerbEnv(t, colabfake.Options{})
	for _, name := range []string{"a.txt", "b.txt"} {
		if code, _, errs := e.run("cp", writeFile(t, filepath.Join(t.TempDir(), name), "x"), "rt-files:"+name); code != 0 {
			t.Fatalf("cp %s: %d %q", name, code, errs)
		}
	}
	code, out, errs := e.run("rm", "rt-files:nofile", "rt-files:a.txt", "rt-files:gone2")
	if code != kit.ExitPartial || strings.Count(errs, "\n") != 2 || !strings.Contains(errs, "nofile") || !strings.Contains(errs, "gone2") ||
		!strings.Contains(out, "removed rt-files:/content/a.txt") {
		t.Fatalf("one of three removable: exit %d, stdout %q, stderr %q; want 7, a.txt removed, a line for each failure", code, out, errs)
	}
	if code, _, errs := e.run("rm", "rt-files:nofile", "rt-files:gone2"); code != kit.ExitNotFound || strings.Count(errs, "\n") != 2 {
		t.Fatalf("none removable: exit %d, stderr %q; want 6 and two lines", code, errs)
	}
	code, out, _ = e.run("rm", "--json", "rt-files:nofile", "rt-files:b.txt")
	var rep files.RmReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != kit.ExitPartial || rep.OK || len(rep.Removed) != 1 || rep.Error == nil {
		t.Fatalf("--json: exit %d, %v, %s", code, err, out)
	}
}
