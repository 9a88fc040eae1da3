package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// `cp -r proj RUNTIME:/content/` (and RUNTIME:, and RUNTIME:/content)
// copies proj into /content under its own name, as cp does into an
// existing directory. Into the root (/proj) or as a missing top-level
// directory it is refused, and the line names the command that copies it
// into /content; that command, pasted, works.
func TestCpDirectoryToTopLevelNamesTheCommandThatWorks(t *testing.T) {
	_, flags := filesEmu(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "proj", "a.txt"), "a")
	t.Chdir(dir)
	for _, dst := range []string{"rt-files:/content/", "rt-files:", "rt-files:/content"} {
		if code, out, errs := runCopied(t, append([]string{"cp", "-r", "proj", dst}, flags...)...); code != 0 || out != "proj/a.txt → rt-files:/content/proj/a.txt\n" {
			t.Fatalf("cp -r proj %s: exit %d, out %q, err %q; want proj copied into /content/proj", dst, code, out, errs)
		}
	}
	for _, dst := range []string{"rt-files:/", "rt-files:/proj"} {
		code, out, errs := runCLI(t, append([]string{"cp", "-r", "proj", dst}, flags...)...)
		if code != kit.ExitUsage || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "colabdash cp -r proj rt-files:/content/") ||
			strings.Contains(errs, "copy into /content/") {
			t.Fatalf("cp -r proj %s: exit %d, out %q, err %q; want exit 2 naming colabdash cp -r proj rt-files:/content/", dst, code, out, errs)
		}
		// The command as printed (the global flags repeated) copies proj.
		_, line, _ := strings.Cut(strings.TrimSpace(errs), "run: ")
		words := strings.Fields(line)
		if len(words) < 5 || words[0] != "colabdash" {
			t.Fatalf("no command to run in %q", errs)
		}
		if code, out, errs := runCopied(t, words[1:]...); code != 0 || !strings.Contains(out, "rt-files:/content/proj/a.txt") {
			t.Fatalf("%s: exit %d, out %q, err %q", line, code, out, errs)
		}
	}
	// A file into the root is still told to go into /content/.
	code, _, errs := runCLI(t, append([]string{"cp", "proj/a.txt", "rt-files:/"}, flags...)...)
	if code != kit.ExitUsage || !strings.Contains(errs, "copy into /content/") {
		t.Errorf("cp FILE rt-files:/: exit %d, err %q", code, errs)
	}
}

// Field trial: a dangling symbolic link in a tree cp -r uploads was
// "a symbolic link to something other than a file". It is said to point
// to nothing (its target does not exist); a link to a directory keeps
// the other wording; the rest is copied and cp exits 0.
func TestCpRecursiveNamesADanglingLink(t *testing.T) {
	_, flags := filesEmu(t)
	src := filepath.Join(t.TempDir(), "proj")
	writeFile(t, filepath.Join(src, "a.txt"), "a")
	writeFile(t, filepath.Join(src, "d", "b.txt"), "b")
	dangling, toDir := filepath.Join(src, "dangling"), filepath.Join(src, "todir")
	if err := os.Symlink(filepath.Join(src, "gone.txt"), dangling); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("d", toDir); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCopied(t, append([]string{"cp", "-r", src, "rt-files:/content/proj"}, flags...)...)
	if code != 0 || !strings.Contains(out, "/content/proj/a.txt") {
		t.Fatalf("cp -r: exit %d, out %q, err %q", code, out, errs)
	}
	lines := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(errs), "\n") {
		for _, p := range []string{dangling, toDir} {
			if strings.Contains(l, p+":") {
				lines[p] = l
			}
		}
	}
	if l := lines[dangling]; !strings.Contains(l, "points to nothing") || !strings.Contains(l, "does not exist") || strings.Contains(l, "something other than a file") {
		t.Errorf("the dangling link's warning: %q, want it to say the link points to nothing\nstderr: %s", l, errs)
	}
	if l := lines[toDir]; !strings.Contains(l, "a symbolic link to something other than a file") {
		t.Errorf("the link to a directory's warning: %q\nstderr: %s", l, errs)
	}
}

// Field trial, the file verbs' messages: each names the remote path as
// every message does, RUNTIME:/PATH, absolute, and says what the user
// asked rather than an internal step.
//   - a read-only directory's refusal said "permission denied: Permission
//     denied: content/many/…": the words twice, the path relative;
//   - rm -r RUNTIME:/ named "delete RUNTIME" with no path;
//   - a partly failed cp -r listed the files not copied without RUNTIME:;
//   - rm of a missing file said "stat RUNTIME:/content/x".
func TestFileMessagesNameRemotePathsAsRuntimeAbsolute(t *testing.T) {
	e := filesVerbEnv(t, colabfake.Options{ManyFiles: 3})
	code, _, errs := e.run("rm", "-r", "rt-files:/content/many")
	if code != kit.ExitFailure || strings.Count(strings.ToLower(errs), "permission denied") != 1 ||
		!strings.Contains(errs, "rt-files:/content/many:") || strings.Contains(errs, " content/many") {
		t.Errorf("rm -r of a read-only directory: exit %d, stderr %q; want one \"permission denied\" and absolute paths", code, errs)
	}
	code, _, errs = e.run("rm", "-r", "rt-files:/")
	if code != kit.ExitUsage || !strings.Contains(errs, "rt-files:/: refusing") {
		t.Errorf("rm -r rt-files:/: exit %d, stderr %q; want the refusal naming rt-files:/", code, errs)
	}
	code, _, errs = e.run("rm", "rt-files:/content/x")
	if code != kit.ExitNotFound || errs != "colabdash: rm rt-files:/content/x: no such file or directory\n" {
		t.Errorf("rm of a missing file: exit %d, stderr %q", code, errs)
	}

	// Two files of an upload refused: the closing line names them as
	// RUNTIME:/PATH.
	src := filepath.Join(t.TempDir(), "proj")
	for _, n := range []string{"a.txt", "b.txt", "c.txt"} {
		writeFile(t, filepath.Join(src, n), n)
	}
	for _, n := range []string{"a.txt", "b.txt"} {
		e.srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Method: http.MethodPut, PathPrefix: "api/contents/content/proj/" + n,
			Status: http.StatusForbidden, ContentType: "application/json", Body: `{"message": "Permission denied: content/proj/` + n + `"}`, Times: -1})
	}
	code, _, errs = e.run("cp", "-r", src, "rt-files:/content/proj")
	last := errs[strings.LastIndex(strings.TrimSuffix(errs, "\n"), "\n")+1:]
	if code != kit.ExitFailure || !strings.Contains(last, "2 entries not copied") ||
		!strings.Contains(last, "rt-files:/content/proj/a.txt, rt-files:/content/proj/b.txt") {
		t.Errorf("cp -r up with two files refused: exit %d, last line %q\nstderr: %s", code, last, errs)
	}
	if strings.Contains(strings.ToLower(errs), "permission denied: permission denied") || strings.Contains(errs, " content/proj") {
		t.Errorf("stderr repeats \"permission denied\" or names a relative path:\n%s", errs)
	}
	e.srv.ClearProxyFaults()
	if code, _, errs := e.run("cp", "-r", src, "rt-files:/content/"); code != 0 { // into /content/proj, which exists
		t.Fatalf("cp -r up: exit %d %q", code, errs)
	}

	// Two files of a download gone: the same.
	for _, n := range []string{"a.txt", "b.txt"} {
		e.srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStockNotFound, PathPrefix: "files/content/proj/" + n, Times: -1})
	}
	code, _, errs = e.run("cp", "-r", "rt-files:/content/proj", filepath.Join(t.TempDir(), "out"))
	last = errs[strings.LastIndex(strings.TrimSuffix(errs, "\n"), "\n")+1:]
	if code != kit.ExitFailure || !strings.Contains(last, "2 entries not copied") ||
		!strings.Contains(last, "rt-files:/content/proj/a.txt, rt-files:/content/proj/b.txt") {
		t.Errorf("cp -r down with two files gone: exit %d, last line %q\nstderr: %s", code, last, errs)
	}
}

// docs/scripting.md: "Every document starts with "ok"", but rm --json
// printed {"removed": [...], "ok": true}. The first key of every --json
// verb's document (each type jsonDocs lists, as rm's own output shows
// it) is "ok", except ls's: it is written as the listing arrives, and
// its "ok" comes last, after the entries (TestLsJSONFailsMidwayAsOneDocument).
func TestEveryJSONDocumentStartsWithOK(t *testing.T) {
	firstKey := func(b []byte) string {
		dec := json.NewDecoder(bytes.NewReader(b))
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			return fmt.Sprintf("not an object (%v)", err)
		}
		tok, err := dec.Token()
		if err != nil {
			return err.Error()
		}
		k, _ := tok.(string)
		return k
	}
	for verb, typ := range jsonDocs {
		b, err := json.Marshal(reflect.New(typ).Interface())
		if err != nil {
			t.Fatalf("%s: %v", verb, err)
		}
		want := "ok"
		if verb == "ls" {
			want = "runtime"
		}
		if k := firstKey(b); k != want {
			t.Errorf("%s --json's document starts with %q, want %q: %s", verb, k, want, b)
		}
	}
	e := filesVerbEnv(t, colabfake.Options{})
	small := writeFile(t, filepath.Join(t.TempDir(), "f.txt"), "x")
	e.run("cp", small, "rt-files:/content/f.txt")
	for _, args := range [][]string{{"rm", "rt-files:/content/f.txt", "--json"}, {"rm", "rt-files:/content/f.txt", "--json"}} {
		code, out, errs := e.run(args...)
		if k := firstKey([]byte(out)); k != "ok" {
			t.Errorf("%v: exit %d, stdout %q (first key %q), stderr %q; want the document to start with \"ok\"", args, code, out, k, errs)
		}
	}
}

// docs/files.md said an unknown runtime is exit 2, as an ambiguous
// prefix is; the program (and docs/scripting.md's table) gives 6.
func TestFilesDocExitCodesForRuntimeArguments(t *testing.T) {
	e := filesVerbEnv(t, colabfake.Options{})
	if _, err := e.srv.AddRuntime(api.Runtime{Name: "runtimes/rt-fig", ConnectionInfo: &api.ConnectionInfo{}}); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../docs/files.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(doc)), " ")
	for _, tc := range []struct{ arg, claim string }{
		{"rt-fi", "an ambiguous prefix (exit %d)"},
		{"rt-zz", "an unknown runtime (exit %d)"},
	} {
		code, _, errs := e.run("ls", tc.arg)
		if claim := fmt.Sprintf(tc.claim, code); code == 0 || !strings.Contains(text, claim) {
			t.Errorf("ls %s exits %d (%q); docs/files.md does not say %q", tc.arg, code, errs, claim)
		}
	}
}

// Field trial: `ls RUNTIME --jq '.foo('` printed its JSON failure
// document on stdout besides the error line. With --jq stdout holds only
// the filter's results: a filter that does not compile gives none (as
// gh's --jq), the stderr line and exit 2 stay. A flag error found before
// --jq was read still goes through the filter.
func TestJQThatDoesNotCompilePrintsNothingOnStdout(t *testing.T) {
	_, flags := filesEmu(t)
	for _, args := range [][]string{
		{"ls", "rt-files", "--jq", ".foo("},
		{"ls", "rt-files", "--jq=.foo("},
		{"ls", "rt-files", "--bogus", "--jq", ".foo("},
		{"rm", "rt-files:/content/x", "--jq", "nosuchfunction(1)"},
		{"ls", "rt-files", "--jq"}, // no expression at all
	} {
		code, out, errs := runCLI(t, append(flags, args...)...)
		if code != kit.ExitUsage || out != "" || strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2, nothing on stdout, one line on stderr", args, code, out, errs)
		}
	}
	code, out, errs := runCLI(t, append([]string{"ls", "rt-files", "--bogus", "--jq", ".error.code"}, flags...)...)
	if code != kit.ExitUsage || out != "usage\n" || !strings.Contains(errs, "--bogus") {
		t.Errorf("ls --bogus --jq .error.code: exit %d, stdout %q, stderr %q; want the filter's result, usage", code, out, errs)
	}
}
