package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/cli/files"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// ls, cp, rm and forward read RUNTIME as every verb does: an id, a name
// or a unique prefix, and an ambiguous or unknown one is the same one-line
// error (exit 2) exec and delete give.
func TestFilesCommandsResolveRuntimesLikeVerbs(t *testing.T) {
	srv, flags := filesEmu(t)
	if _, err := srv.AddRuntime(api.Runtime{Name: "runtimes/rt-fizz", ConnectionInfo: &api.ConnectionInfo{}}); err != nil {
		t.Fatal(err)
	}
	cli := cliWith(t, flags)
	local := writeFile(t, filepath.Join(t.TempDir(), "f.txt"), "hello")
	if code, out, errs := runCopied(t, append([]string{"cp", local, "rt-fil:/content/"}, flags...)...); code != 0 || !strings.Contains(out, "rt-files:/content/f.txt") {
		t.Fatalf("cp to a unique prefix: exit %d %q %q", code, out, errs)
	}
	if code, out, errs := cli("ls", "rt-fil"); code != 0 || !strings.Contains(out, "f.txt") {
		t.Fatalf("ls of a unique prefix: exit %d %q %q", code, out, errs)
	}
	var ls struct{ Runtime string }
	if code, out, errs := cli("ls", "rt-fil:.", "--json"); code != 0 || json.Unmarshal([]byte(out), &ls) != nil || ls.Runtime != "runtimes/rt-files" {
		t.Fatalf("ls --json of a unique prefix: exit %d %q %q, want runtime runtimes/rt-files", code, out, errs)
	}
	if code, out, errs := cli("rm", "rt-fil:/content/f.txt"); code != 0 || out != "removed rt-files:/content/f.txt\n" {
		t.Fatalf("rm through a unique prefix: exit %d %q %q", code, out, errs)
	}

	// "rt-" and "RT-FILES" are not valid ids, yet ls, rm and forward
	// resolve them as every verb does (seen in use: ls said "is not
	// RUNTIME:PATH" for them while "ls rt" listed candidates).
	for _, arg := range []string{"rt-fi", "rt-nope", "rt-", "RT-FILES"} {
		_, _, want := cli("exec", arg, "-c", "1")
		wantCode := kit.ExitNotFound // no such runtime
		if strings.Contains(want, "matches 2 runtimes") {
			wantCode = kit.ExitUsage // an ambiguous prefix
		}
		if _, _, del := cli("delete", arg, "--yes"); !strings.HasSuffix(del, strings.TrimPrefix(want, "colabdash: ")) {
			t.Fatalf("exec and delete disagree on %q: %q, %q", arg, want, del)
		}
		if !strings.HasPrefix(want, "colabdash: ") || strings.Count(want, "\n") != 1 {
			t.Fatalf("exec %s: %q", arg, want)
		}
		for _, args := range [][]string{
			{"ls", arg}, {"ls", arg + ":/content"}, {"rm", arg + ":/content/x"}, {"forward", arg, "--port", "0"},
		} {
			if code, out, errs := cli(args...); code != wantCode || out != "" || errs != want {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and %q", args, code, out, errs, wantCode, want)
			}
		}
		// cp alone may mean a local name with a colon, and says so.
		code, _, errs := cli("cp", arg+":/content/x", t.TempDir())
		if api.ValidateID(arg) != nil {
			// Not an id: read as a local path, which the error explains.
			if code != kit.ExitUsage || !strings.Contains(errs, "is read as a local path") || strings.Count(errs, "\n") != 1 {
				t.Errorf("cp %s:/content/x: exit %d, stderr %q", arg, code, errs)
			}
		} else if code != wantCode || !strings.HasPrefix(errs, strings.TrimSuffix(want, "\n")) {
			t.Errorf("cp %s:/content/x: exit %d, stderr %q; want exit %d starting %q", arg, code, errs, wantCode, want)
		}
	}
	// rm's arguments may name the one runtime in different ways.
	cli("cp", local, "rt-files:/content/a.txt")
	cli("cp", local, "rt-files:/content/b.txt")
	if code, out, errs := cli("rm", "rt-fil:/content/a.txt", "runtimes/rt-files:/content/b.txt"); code != 0 || strings.Count(out, "removed rt-files:") != 2 {
		t.Fatalf("rm naming one runtime two ways: exit %d %q %q", code, out, errs)
	}
	if code, _, errs := cli("rm", "rt-fil:/content/a.txt", "rt-fizz:/content/b.txt"); code != kit.ExitUsage || !strings.Contains(errs, "one runtime at a time") {
		t.Fatalf("rm on two runtimes: exit %d %q", code, errs)
	}
	// --jobs outside 1..32 is a usage error.
	for _, n := range []string{"0", "33"} {
		if code, _, errs := cli("cp", "-r", "--jobs", n, local, "rt-files:/content/j"); code != kit.ExitUsage || !strings.Contains(errs, "--jobs "+n+": give 1 to 32") {
			t.Errorf("--jobs %s: exit %d %q", n, code, errs)
		}
	}
}

// The error fields of cp --json and rm --json are redacted like every
// other output: a secret the process knows (here the OAuth access token,
// written as a remote path) never appears in them.
func TestFilesJSONErrorsRedacted(t *testing.T) {
	_, flags := filesEmu(t)
	const secret = "fake-oauth-token" // filesEmu's --access-token-file
	for _, args := range [][]string{
		{"cp", "rt-files:/content/" + secret, t.TempDir(), "--json"},
		{"rm", "rt-files:/content/" + secret, "--json"},
	} {
		code, out, errs := runCLI(t, append(args, flags...)...)
		var rep struct {
			OK    bool
			Error struct{ Code, Message string }
		}
		if code != files.ExitNoSuchFile || json.Unmarshal([]byte(out), &rep) != nil || rep.OK || rep.Error.Message == "" || rep.Error.Code != "not_found" {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q", args[0], code, out, errs)
		}
		if strings.Contains(out, secret) || strings.Contains(errs, secret) || !strings.Contains(rep.Error.Message, "[redacted]") {
			t.Errorf("%v --json: the access token is in its output: stdout %q, stderr %q", args[0], out, errs)
		}
	}
}

// Completing the RUNTIME of ls, cp, rm and forward uses the verbs' cache:
// the next tab press within a minute costs no list_runtimes call.
func TestFilesCompletionUsesTheCache(t *testing.T) {
	srv, flags := filesEmu(t)
	complete := func(args ...string) string {
		_, out, _ := runCLI(t, append(append([]string{"__complete", args[0]}, flags...), args[1:]...)...)
		return out
	}
	before := srv.CallCount("list_runtimes")
	for _, args := range [][]string{{"ls", "rt-"}, {"rm", "rt-"}, {"cp", "x", "rt-"}, {"forward", "rt-"}, {"exec", "rt-"}} {
		out := complete(args...)
		want := "rt-files:\t"
		if args[0] == "forward" || args[0] == "exec" {
			want = "rt-files\t"
		}
		if !strings.HasPrefix(out, want) {
			t.Errorf("completing %v: %q, want it to start %q", args, out, want)
		}
	}
	if n := srv.CallCount("list_runtimes") - before; n != 1 {
		t.Errorf("%d list_runtimes calls for five completions within a minute, want 1 (the cache)", n)
	}
}

// Field trial: ".." in RUNTIME:PATH was never cleaned, so outputs kept it
// and `ls rt:/content/../..` invented an entry with no name. The path is
// cleaned once, when parsed: every output names the cleaned path, a
// top-level file is refused however it is written, and cp creates
// nothing at the top level (rm could not remove it).
func TestFilesVerbsCleanDotDot(t *testing.T) {
	_, flags := filesEmu(t)
	cli := cliWith(t, flags)
	local := writeFile(t, filepath.Join(t.TempDir(), "f.txt"), "x")
	if code, out, errs := cli("cp", local, "rt-files:/content/sub/../p2/"); code == 0 {
		t.Fatalf("cp into a missing directory: exit 0 %q %q", out, errs)
	}
	cli("cp", "-r", filepath.Dir(local), "rt-files:/content/p2")
	cli("rm", "rt-files:/content/p2/f.txt") // this server deletes only empty directories
	var rm files.RmReport
	code, out, errs := cli("rm", "-r", "rt-files:/content/sample_data/../p2", "--json")
	if code != 0 || json.Unmarshal([]byte(out), &rm) != nil || len(rm.Removed) != 1 || rm.Removed[0] != "rt-files:/content/p2" {
		t.Fatalf("rm -r through ..: exit %d %s %q; want /content/p2 named cleaned", code, out, errs)
	}
	code, out, errs = cli("rm", "rt-files:/content/../data.csv", "--json")
	if code != kit.ExitUsage || !strings.Contains(errs, "rt-files:/data.csv: refusing") || strings.Contains(out, "..") {
		t.Fatalf("rm of a top-level file through ..: exit %d %s %q", code, out, errs)
	}
	code, out, errs = cli("cp", local, "rt-files:/content/../", "--json")
	if code != kit.ExitUsage || !strings.Contains(errs, "rt-files:/f.txt: refusing to create a top-level") {
		t.Fatalf("cp to the root through ..: exit %d %s %q", code, out, errs)
	}
	var ls files.LsJSON
	code, out, errs = cli("ls", "rt-files:/content/../..", "--json")
	if code != 0 || json.Unmarshal([]byte(out), &ls) != nil || ls.Path != "/" || len(ls.Entries) == 0 {
		t.Fatalf("ls of /content/../..: exit %d %s %q; want the root", code, out, errs)
	}
	for _, e := range ls.Entries {
		if e.Name == "" || e.Type == "" {
			t.Errorf("ls of the root lists a made-up entry %+v", e)
		}
	}
}

// Field trial: "rm rt-zz:/x" said "refusing to remove /x itself" before
// looking at the runtime; RUNTIME is resolved first, as for every verb.
func TestRmResolvesRuntimeBeforePathRules(t *testing.T) {
	_, flags := filesEmu(t)
	code, out, errs := runCLI(t, append([]string{"rm", "rt-zz:/x", "--json"}, flags...)...)
	var rm files.RmReport
	if code != kit.ExitNotFound || json.Unmarshal([]byte(out), &rm) != nil || rm.OK || rm.Error == nil ||
		!strings.Contains(errs, `no runtime "rt-zz" (live: rt-files)`) || !strings.Contains(rm.Error.Message, `no runtime "rt-zz"`) {
		t.Fatalf("rm on an unknown runtime: exit %d, stdout %s, stderr %q; want the unknown runtime named", code, out, errs)
	}
	// A protected path on a known runtime is still refused, nothing removed.
	code, _, errs = runCLI(t, append([]string{"rm", "-r", "rt-files:/content/sample_data/.."}, flags...)...)
	if code != kit.ExitUsage || !strings.Contains(errs, "rt-files:/content: refusing") {
		t.Fatalf("rm of /content through ..: exit %d, %q", code, errs)
	}
}
