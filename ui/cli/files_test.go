package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/colabfaketest"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/ui/cli/files"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// cliWith is runCLI with flags (the global flags that reach an emulator)
// after the command's own arguments.
func cliWith(t *testing.T, flags []string) func(args ...string) (int, string, string) {
	return func(args ...string) (int, string, string) {
		t.Helper()
		return runCLI(t, append(args, flags...)...)
	}
}

// filesEmu starts an emulator with runtime rt-files and returns it and
// the global flags that reach it.
func filesEmu(t *testing.T) (*colabfake.Server, []string) {
	t.Helper()
	home := isolate(t)
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state")) // the completion cache
	srv, ep := colabfaketest.Start(t, colabfake.Options{})
	if _, err := srv.AddRuntime(api.Runtime{Name: "runtimes/rt-files", ConnectionInfo: &api.ConnectionInfo{}}); err != nil {
		t.Fatal(err)
	}
	tok := writeFile(t, filepath.Join(home, "token"), "fake-oauth-token")
	return srv, []string{"--endpoint", ep, "--access-token-file", tok}
}

func TestFilesCommandsRoundTrip(t *testing.T) {
	srv, flags := filesEmu(t)
	dir := t.TempDir()
	local := writeFile(t, filepath.Join(dir, "data #1.csv"), "a,b\n1,2\n")
	cli := cliWith(t, flags)
	if code, out, errs := runCopied(t, append([]string{"cp", local, "rt-files:/content/"}, flags...)...); code != 0 || !strings.Contains(out, "rt-files:/content/data #1.csv") {
		t.Fatalf("cp up: exit %d, out %q, err %q", code, out, errs)
	}
	// A directory's ls is one request to the runtime (no stat first:
	// a round trip through Colab's proxy each time).
	before, _ := srv.ProxyRequests()
	code, out, errs := cli("ls", "rt-files")
	if code != 0 || !strings.Contains(out, "8 B") || !strings.Contains(out, "data #1.csv") {
		t.Fatalf("ls: exit %d, out %q, err %q", code, out, errs)
	}
	if after, _ := srv.ProxyRequests(); after-before != 1 {
		t.Errorf("ls of a directory sent %d requests to the runtime, want 1", after-before)
	}
	// A file's ls is its one line, in text and in JSON.
	if code, out, errs := cli("ls", "rt-files:/content/data #1.csv"); code != 0 || strings.Count(out, "\n") != 1 || !strings.Contains(out, "8 B") || !strings.HasSuffix(out, "  data #1.csv\n") {
		t.Fatalf("ls of a file: exit %d, out %q, err %q", code, out, errs)
	}
	var one struct {
		Type    string
		Entries []struct{ Name, Path string }
	}
	if code, out, _ := cli("ls", "rt-files:/content/data #1.csv", "--json"); code != 0 || json.Unmarshal([]byte(out), &one) != nil ||
		one.Type != "file" || len(one.Entries) != 1 || one.Entries[0].Path != "/content/data #1.csv" {
		t.Fatalf("ls --json of a file: exit %d, %q", code, out)
	}
	code, out, _ = cli("ls", "runtimes/rt-files:.", "--json") // relative: /content
	var ls struct {
		Runtime, Path, Type string
		Entries             []struct {
			Name string
			Size int64
			Type string
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &ls) != nil || ls.Type != "directory" || len(ls.Entries) != 1 || ls.Entries[0].Size != 8 {
		t.Fatalf("ls --json: exit %d, %q", code, out)
	}
	back := filepath.Join(dir, "back.csv")
	code, out, errs = cli("cp", "rt-files:data #1.csv", back, "--json") // relative: in /content
	var sum files.CopySummary
	if code != 0 || json.Unmarshal([]byte(out), &sum) != nil || !sum.OK || len(sum.Files) != 1 || sum.Bytes != 8 {
		t.Fatalf("cp down --json: exit %d, out %q, err %q", code, out, errs)
	}
	if b, _ := os.ReadFile(back); string(b) != "a,b\n1,2\n" {
		t.Fatalf("downloaded %q", b)
	}
	// A name carrying terminal control sequences is shown inert.
	evil := writeFile(t, filepath.Join(dir, "evil\x1b]0;pwned\x07\u202e.txt"), "x")
	if code, _, errs := cli("cp", evil, "rt-files:/content/"); code != 0 {
		t.Fatalf("cp evil: %d %s", code, errs)
	}
	if code, out, _ := cli("ls", "rt-files"); code != 0 || strings.ContainsAny(out, "\x1b\x07\u202e") || !strings.Contains(out, `\x1b]0;pwned`) {
		t.Fatalf("ls shows a hostile name as %q", out)
	}
	if code, out, errs := cli("rm", "rt-files:/content/data #1.csv"); code != 0 || !strings.Contains(out, "removed rt-files:/content/data #1.csv") {
		t.Fatalf("rm: exit %d, out %q, err %q", code, out, errs)
	}
	cli("rm", "rt-files:"+"/content/evil\x1b]0;pwned\x07\u202e.txt")
	if code, out, _ := cli("ls", "rt-files:", "--json"); code != 0 || !strings.Contains(out, `"entries": []`) {
		t.Fatalf("ls after rm: exit %d %q", code, out)
	}
}

// "/" on a runtime is its root, as Colab's Jupyter root is and as the
// dashboard's files pane shows it (content/ in it), for ls, cp and rm
// alike; "RUNTIME:" alone is /content. Every JSON output names remote
// paths absolute ("/content/x").
func TestFilesRootIsTheRuntimeRoot(t *testing.T) {
	_, flags := filesEmu(t)
	dir := t.TempDir()
	local := writeFile(t, filepath.Join(dir, "f.txt"), "x")
	cli := cliWith(t, flags)
	code, out, errs := cli("ls", "rt-files:/")
	if code != 0 || !strings.Contains(out, "content/") {
		t.Fatalf("ls rt-files:/: exit %d, out %q, err %q; want the root, holding content/", code, out, errs)
	}
	var ls struct {
		Path    string
		Entries []struct{ Name, Path string }
	}
	code, out, _ = cli("ls", "rt-files:/", "--json")
	if code != 0 || json.Unmarshal([]byte(out), &ls) != nil || ls.Path != "/" || len(ls.Entries) == 0 || ls.Entries[0].Path != "/content" {
		t.Fatalf("ls --json of /: exit %d, %s", code, out)
	}
	// cp to / means the root, where nothing is created: a top-level
	// file could not be removed (jupyter.Creatable, Removable's rule).
	code, out, errs = cli("cp", local, "rt-files:/", "--json")
	var sum files.CopySummary
	if code != kit.ExitUsage || json.Unmarshal([]byte(out), &sum) != nil || len(sum.Files) != 0 || !strings.Contains(errs, "rt-files:/f.txt: refusing to create a top-level") {
		t.Fatalf("cp to /: exit %d, out %s, err %q; want it refused naming /f.txt", code, out, errs)
	}
	if code, out, _ := cli("ls", "rt-files:", "--json"); code != 0 || strings.Contains(out, "f.txt") || !strings.Contains(out, `"path": "/content"`) {
		t.Fatalf("ls rt-files: (= /content): exit %d, %s", code, out)
	}
	cli("cp", local, "rt-files:./")
	code, out, _ = cli("ls", "rt-files:.", "--json")
	if code != 0 || json.Unmarshal([]byte(out), &ls) != nil || ls.Path != "/content" || len(ls.Entries) != 1 || ls.Entries[0].Path != "/content/f.txt" {
		t.Fatalf("ls --json of content: exit %d, %s", code, out)
	}
	code, out, _ = cli("cp", "rt-files:/content/f.txt", filepath.Join(dir, "back.txt"), "--json")
	if code != 0 || json.Unmarshal([]byte(out), &sum) != nil || len(sum.Files) != 1 || sum.Files[0].Src != "rt-files:/content/f.txt" {
		t.Fatalf("cp down --json: exit %d, %s", code, out)
	}
	var rm files.RmReport
	if code, _, errs := cli("rm", "rt-files:content/f.txt"); code != files.ExitNoSuchFile || !strings.Contains(errs, "rt-files:/content/content/f.txt") {
		t.Fatalf("rm rt-files:content/f.txt (relative: /content/content/f.txt): exit %d, err %q", code, errs)
	}
	code, out, _ = cli("rm", "rt-files:f.txt", "--json")
	if code != 0 || json.Unmarshal([]byte(out), &rm) != nil || len(rm.Removed) != 1 || rm.Removed[0] != "rt-files:/content/f.txt" {
		t.Fatalf("rm --json: exit %d, %s", code, out)
	}
}

func TestFilesCommandsBadInput(t *testing.T) {
	_, flags := filesEmu(t)
	dir := t.TempDir()
	local := writeFile(t, filepath.Join(dir, "f.txt"), "x")
	wd, _ := os.Getwd()
	t.Cleanup(func() { os.Chdir(wd) })
	os.Chdir(dir)
	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		mention string
	}{
		{"missing local file", []string{"cp", filepath.Join(dir, "nope.txt"), "rt-files:/content/"}, files.ExitNoSuchFile, "nope.txt"},
		{"missing remote file", []string{"cp", "rt-files:/content/nope.bin", dir}, files.ExitNoSuchFile, "content/nope.bin"},
		{"missing remote parent", []string{"cp", local, "rt-files:/content/no/such/dir/f.txt"}, files.ExitNoSuchFile, "content/no/such/dir"},
		{"missing local parent", []string{"cp", "rt-files:/content", filepath.Join(dir, "a", "b"), "-r"}, files.ExitNoSuchFile, filepath.Join(dir, "a")},
		// A directory without -r is a usage error (2), not a local failure (1).
		{"directory without -r", []string{"cp", dir, "rt-files:/content/d"}, kit.ExitUsage, "-r"},
		{"remote directory without -r", []string{"cp", "rt-files:/content/sub", dir}, kit.ExitUsage, "-r"},
		{"unknown runtime", []string{"cp", "backup-12:30.tar", "./x"}, kit.ExitNotFound, `no runtime "backup-12" (live: rt-files) (to name a local file with a colon, write ./backup-12:30.tar)`},
		{"both local", []string{"cp", local, "./other"}, kit.ExitUsage, "RUNTIME:PATH"},
		{"both remote", []string{"cp", "rt-files:a", "rt-files:b"}, kit.ExitUsage, "both sides"},
		{"ls of a missing path", []string{"ls", "rt-files:/content/nope"}, files.ExitNoSuchFile, "content/nope"},
		{"rm of a directory without -r", []string{"rm", "rt-files:/content/sub"}, kit.ExitUsage, "-r"},
		{"rm of /content", []string{"rm", "-r", "rt-files:/content"}, kit.ExitUsage, "refusing"},
		{"hidden file", []string{"cp", "rt-files:/content/.env", dir}, files.ExitNoSuchFile, "hidden"},
	} {
		if tc.name == "remote directory without -r" {
			runCLI(t, append([]string{"cp", "-r", dir, "rt-files:/content/sub"}, flags...)...)
		}
		code, out, errs := runCLI(t, append(tc.args, flags...)...)
		errs = strings.TrimSuffix(errs, "\n")
		if tc.name == "missing remote parent" { // its second line is the fix (TestCpFailuresSayTheFix)
			errs, _, _ = strings.Cut(errs, "\ncolabdash: fix: ")
		}
		if code != tc.code || strings.Contains(errs, "\n") || !strings.Contains(errs, tc.mention) {
			t.Errorf("%s: exit %d (want %d), stderr %q (want one line naming %q), stdout %q", tc.name, code, tc.code, errs, tc.mention, out)
		}
	}
	// Two plain local paths get no "write ./…" hint (it said "write ././a").
	if code, _, errs := runCLI(t, append([]string{"cp", "./a", "./b"}, flags...)...); code != kit.ExitUsage || strings.Contains(errs, "././") || strings.Contains(errs, "write ./") {
		t.Errorf("cp ./a ./b: exit %d, stderr %q", code, errs)
	}
	// No partial files anywhere.
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() != "f.txt" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
	// --json on failure: one object with ok false, and a non-zero exit.
	code, out, _ := runCLI(t, append([]string{"cp", "rt-files:/content/nope.bin", dir, "--json"}, flags...)...)
	var sum files.CopySummary
	if code != files.ExitNoSuchFile || json.Unmarshal([]byte(out), &sum) != nil || sum.OK || sum.Error == nil || sum.Error.Code != "not_found" || sum.Files == nil {
		t.Fatalf("cp --json failure: exit %d, %q", code, out)
	}
}

// Field trial: ls --json printed nothing on failure while cp and rm
// printed "ok": false. Every file verb with --json prints exactly one
// object on stdout whatever failed (an argument, the runtime, the path),
// with ok false and the stderr line's reason, and the failure's exit code.
func TestFilesJSONFailureIsOneDocument(t *testing.T) {
	_, flags := filesEmu(t)
	dir := t.TempDir()
	local := writeFile(t, filepath.Join(dir, "f.txt"), "x")
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"ls", "rt-files:/content/nope"}, files.ExitNoSuchFile},
		{[]string{"ls", "rt-zz"}, kit.ExitNotFound},
		{[]string{"ls", ":/x"}, kit.ExitUsage},
		{[]string{"cp", "rt-zz:/content/x", dir}, kit.ExitNotFound},
		{[]string{"cp", dir, "rt-files:/content/d"}, kit.ExitUsage},
		{[]string{"cp", local, "rt-files:/content/no/dir/"}, files.ExitNoSuchFile},
		{[]string{"rm", "rt-zz:/content/x"}, kit.ExitNotFound},
		{[]string{"rm", "rt-files:/content/nope"}, files.ExitNoSuchFile},
		{[]string{"rm", "rt-files"}, kit.ExitUsage},
	} {
		code, out, errs := runCLI(t, append(append(tc.args, "--json"), flags...)...)
		var doc map[string]any
		dec := json.NewDecoder(strings.NewReader(out))
		if code != tc.code || dec.Decode(&doc) != nil || dec.More() || doc["ok"] != false {
			t.Errorf("%v --json: exit %d (want %d), stdout %q; want one object with ok false", tc.args, code, tc.code, out)
			continue
		}
		e, _ := doc["error"].(map[string]any)
		if why, _ := e["message"].(string); why == "" || !strings.Contains(errs, why) || e["code"] != kit.CodeWord(tc.code) {
			t.Errorf("%v --json: error %q, stderr %q", tc.args, doc["error"], errs)
		}
	}
	code, out, _ := runCLI(t, append([]string{"ls", "rt-files", "--json"}, flags...)...)
	if code != 0 || !strings.Contains(out, `"ok": true`) {
		t.Errorf("ls --json success: exit %d, %s", code, out)
	}
}

// Shell completion offers runtime ids, then remote paths.
func TestFilesCompletion(t *testing.T) {
	_, flags := filesEmu(t)
	local := writeFile(t, filepath.Join(t.TempDir(), "f.txt"), "x")
	runCLI(t, append([]string{"cp", local, "rt-files:/content/"}, flags...)...)
	runCLI(t, append([]string{"cp", "-r", filepath.Dir(local), "rt-files:/content/sub"}, flags...)...)
	complete := func(args ...string) string {
		// The word being completed is the last argument: flags go first.
		_, out, _ := runCLI(t, append(append([]string{"__complete", args[0]}, flags...), args[1:]...)...)
		return out
	}
	out := complete("cp", "x", "rt-")
	if !strings.HasPrefix(out, "rt-files:\t") {
		t.Errorf("completing a runtime: %q", out)
	}
	out = complete("cp", "x", "rt-files:/content/")
	if !strings.Contains(out, "rt-files:/content/f.txt\n") || !strings.Contains(out, "rt-files:/content/sub/\n") {
		t.Errorf("completing a path: %q", out)
	}
	out = complete("ls", "rt-files:")
	if strings.Contains(out, "f.txt") || !strings.Contains(out, "rt-files:sub/") {
		t.Errorf("ls completes directories only: %q", out)
	}
}

// `colabdash forward` prints a loopback URL with a local token, forwards
// with it and refuses without; a second forward on the same port fails
// clearly instead of moving elsewhere.
func TestForwardCommand(t *testing.T) {
	bin := needBinary(t)
	_, flags := filesEmu(t)
	// --port 0: forward picks a free port and the test reads it back from
	// the URL, so no other process can take it between a pick and a listen.
	ctx, cancel := context.WithCancel(context.Background())
	fw := exec.CommandContext(ctx, bin, append([]string{"forward", "rt-fil", "--port", "0"}, flags...)...) // a unique prefix, as for every verb
	stdout, _ := fw.StdoutPipe()
	fw.Stderr = io.Discard
	if err := fw.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); fw.Wait() }()
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var u string
	select {
	case u = <-lines:
	case <-time.After(60 * time.Second):
		t.Fatal("forward printed no URL")
	}
	port, _, _ := strings.Cut(strings.TrimPrefix(u, "http://127.0.0.1:"), "/")
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
		t.Fatalf("first line %q names no port on 127.0.0.1", u)
	}
	prefix := "http://127.0.0.1:" + port + "/?token="
	if !strings.HasPrefix(u, prefix) || len(u)-len(prefix) < 32 {
		t.Fatalf("first line %q, want %s<token>", u, prefix)
	}
	tok := strings.TrimPrefix(u, prefix)
	get := func(auth string) int {
		req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:"+port+"/api/contents/content", nil)
		if auth != "" {
			req.Header.Set("Authorization", "token "+auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := get(tok); s != 200 {
		t.Fatalf("with the token: %d", s)
	}
	if s := get(""); s != http.StatusUnauthorized {
		t.Fatalf("without the token: %d", s)
	}
	code, _, errs := runCLI(t, append([]string{"forward", "rt-files", "--port", port}, flags...)...)
	if code != kit.ExitFailure || !strings.Contains(errs, "already in use") {
		t.Fatalf("second forward on the same port: exit %d, %q", code, errs)
	}
}

// Guards cp -r up and symbolic links from the command line: a link that
// leads out of the directory is skipped with a warning naming it and -L
// (exit 0, the rest copied); with -L it is uploaded.
func TestCpRecursiveLinkOutsideNeedsL(t *testing.T) {
	_, flags := filesEmu(t)
	secret := writeFile(t, filepath.Join(t.TempDir(), "id_rsa"), "KEY")
	src := filepath.Join(t.TempDir(), "repo")
	writeFile(t, filepath.Join(src, "a.txt"), "a")
	if err := os.Symlink(secret, filepath.Join(src, "key")); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCopied(t, append([]string{"cp", "-r", src, "rt-files:/content/repo"}, flags...)...)
	if code != 0 || !strings.Contains(out, "a.txt") || strings.Contains(out, "key") ||
		!strings.Contains(errs, filepath.Join(src, "key")) || !strings.Contains(errs, "cp -L") {
		t.Fatalf("cp -r with a link out of the tree: exit %d, out %q, err %q", code, out, errs)
	}
	code, out, errs = runCopied(t, append([]string{"cp", "-r", "-L", src, "rt-files:/content/repo2"}, flags...)...)
	if code != 0 || !strings.Contains(out, "/content/repo2/key") {
		t.Fatalf("cp -r -L: exit %d, out %q, err %q", code, out, errs)
	}
}

// ls of a large directory prints every entry, one line
// each in the server's order, its sizes aligned; --json has them all;
// the directory shows in /content like any other.
func TestLsLargeDirectory(t *testing.T) {
	const n = 3000
	home := isolate(t)
	srv, ep := colabfaketest.Start(t, colabfake.Options{ManyFiles: n, TokenTTL: 24 * time.Hour})
	if _, err := srv.AddRuntime(api.Runtime{Name: "runtimes/rt-big", ConnectionInfo: &api.ConnectionInfo{}}); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--endpoint", ep, "--access-token-file", writeFile(t, filepath.Join(home, "token"), "fake-oauth-token")}
	code, out, errs := runCLI(t, append([]string{"ls", "rt-big:/content/many"}, flags...)...)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || len(lines) != n {
		t.Fatalf("ls: exit %d, %d lines, stderr %q", code, len(lines), errs)
	}
	for _, i := range []int{0, n - 1} {
		if want := "     0 B  "; !strings.HasPrefix(lines[i], want) || !strings.HasSuffix(lines[i], "  "+colabfake.SyntheticName(i+1)) {
			t.Fatalf("line %d = %q", i+1, lines[i])
		}
	}
	code, out, _ = runCLI(t, append([]string{"ls", "rt-big:/content/many", "--json"}, flags...)...)
	var rep files.LsJSON
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || len(rep.Entries) != n || rep.Entries[n-1].Path != "/content/many/"+colabfake.SyntheticName(n) {
		t.Fatalf("ls --json: exit %d, %d entries", code, len(rep.Entries))
	}
	if code, out, _ := runCLI(t, append([]string{"ls", "rt-big"}, flags...)...); code != 0 || !strings.Contains(out, "  many/") {
		t.Fatalf("ls /content: exit %d, %q", code, out)
	}
}

// Field trial: `ls RUNTIME:/nope --json` said "runtime": "" and "path": ""
// although the runtime had been resolved; README says a failure's fields
// are filled as far as the command got: the path once read, the runtime
// once resolved.
func TestLsJSONFailureSaysHowFarItGot(t *testing.T) {
	_, flags := filesEmu(t)
	for _, tc := range []struct {
		arg, runtime, path string
		code               int
	}{
		{"rt-fil:/nope", "runtimes/rt-files", "/nope", files.ExitNoSuchFile},
		{"rt-zz:/content/x", "", "/content/x", kit.ExitNotFound},
	} {
		code, out, errs := runCLI(t, append([]string{"ls", tc.arg, "--json"}, flags...)...)
		var rep files.LsJSON
		if err := json.Unmarshal([]byte(out), &rep); err != nil || code != tc.code || rep.OK || rep.Error == nil || rep.Error.Code != kit.CodeWord(tc.code) ||
			string(rep.Runtime) != tc.runtime || rep.Path != tc.path || rep.Entries == nil {
			t.Errorf("ls %s --json: exit %d, stdout %s, stderr %q; want runtime %q, path %q", tc.arg, code, out, errs, tc.runtime, tc.path)
		}
	}
}

// lsJSONEmu is an emulator with rt-big holding /content/many (n synthetic
// entries) and /content (names JSON and the terminal must escape).
func lsJSONEmu(t *testing.T, n int) (*colabfake.Server, []string) {
	t.Helper()
	home := isolate(t)
	srv, ep := colabfaketest.Start(t, colabfake.Options{ManyFiles: n, TokenTTL: 24 * time.Hour})
	rt, err := srv.AddRuntime(api.Runtime{Name: "runtimes/rt-big", ConnectionInfo: &api.ConnectionInfo{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{`a<b>&"c\d.txt`, "über €.txt", "bidi\u202eevil.txt", "c1\u0085x.txt", "plain.txt"} {
		req, _ := http.NewRequest(http.MethodPut, rt.ConnectionInfo.URL+"api/contents/content/"+url.PathEscape(name),
			strings.NewReader(`{"type": "file", "format": "text", "content": "x"}`))
		req.Header.Set(jupyter.TokenHeader, rt.ConnectionInfo.Token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode/100 != 2 {
			t.Fatalf("PUT %q: %v %v", name, resp, err)
		}
		resp.Body.Close()
	}
	return srv, []string{"--endpoint", ep, "--access-token-file", writeFile(t, filepath.Join(home, "token"), "fake-oauth-token")}
}

// ls --json, written as the listing arrives, is the document --jq sees
// (which collects the listing and encodes it with encoding/json): the
// same value, HTML characters, C1 and bidirectional controls escaped;
// each entry on a line of its own (a script can follow the listing line
// by line), "ok" last.
func TestLsJSONStreamedIsTheWholeDocument(t *testing.T) {
	const n = 3000 // several blocks of output
	_, flags := lsJSONEmu(t, n)
	for _, dir := range []string{"rt-big:/content/many", "rt-big:/content", "rt-big:/content/plain.txt"} {
		code, out, errs := runCLI(t, append([]string{"ls", dir, "--json"}, flags...)...)
		var rep files.LsJSON
		if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || !rep.OK || rep.Error != nil {
			t.Fatalf("ls %s --json: exit %d, %v, stderr %q, stdout %.300s", dir, code, err, errs, out)
		}
		if !strings.HasPrefix(out, "{\n  \"runtime\": \"runtimes/rt-big\",\n  \"path\": ") {
			t.Errorf("ls %s --json does not start with its runtime and path: %.80q", dir, out)
		}
		lines := strings.Split(out, "\n")
		start := slices.Index(lines, `  "entries": [`)
		if start < 0 || len(lines) < start+len(rep.Entries)+2 {
			t.Fatalf("ls %s --json: no entries array of %d lines:\n%.400s", dir, len(rep.Entries), out)
		}
		for i, e := range rep.Entries {
			var one any
			line := strings.TrimSuffix(strings.TrimPrefix(lines[start+1+i], "    "), ",")
			if err := json.Unmarshal([]byte(line), &one); err != nil || one.(map[string]any)["path"] != e.Path {
				t.Fatalf("entry %d is not one line of its own: %q (%v)", i, lines[start+1+i], err)
			}
		}
		if !strings.HasSuffix(out, "  ],\n  \"ok\": true\n}\n") {
			t.Errorf("ls %s --json does not end with its entries, then \"ok\": %q", dir, out[max(len(out)-60, 0):])
		}
		_, jq, _ := runCLI(t, append([]string{"ls", dir, "--jq", "."}, flags...)...)
		var a, b any
		if json.Unmarshal([]byte(out), &a) != nil || json.Unmarshal([]byte(jq), &b) != nil || !reflect.DeepEqual(a, b) {
			t.Errorf("ls %s: --jq . and --json differ", dir)
		}
		switch dir {
		case "rt-big:/content/many":
			if len(rep.Entries) != n || rep.Type != "directory" || rep.Entries[n-1].Path != "/content/many/"+colabfake.SyntheticName(n) {
				t.Errorf("many: %d entries, type %q", len(rep.Entries), rep.Type)
			}
		case "rt-big:/content":
			for _, esc := range []string{`a\u003cb\u003e\u0026\"c\\d.txt`, `bidi\u202eevil.txt`, `c1\u0085x.txt`, "über €.txt"} {
				if !strings.Contains(out, esc) {
					t.Errorf("odd: %q not in the document", esc)
				}
			}
		default:
			if rep.Type != "file" || len(rep.Entries) != 1 {
				t.Errorf("a file: type %q, %d entries", rep.Type, len(rep.Entries))
			}
		}
	}
}

// A listing cut midway, after entries were written: stdout still holds
// exactly one JSON document, the entries that arrived and then "ok":
// false and the error (the failure's exit code and stderr line); cut
// before its first entry, the failure document has no entries and no type.
func TestLsJSONFailsMidwayAsOneDocument(t *testing.T) {
	const n = 3000
	srv, flags := lsJSONEmu(t, n)
	for _, tc := range []struct {
		after int64
		some  bool
	}{{200_000, true}, {10, false}} {
		srv.ClearProxyFaults()
		srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyCut, Method: http.MethodGet, PathPrefix: "api/contents/content/many", After: tc.after, Times: -1})
		code, out, errs := runCLI(t, append([]string{"ls", "rt-big:/content/many", "--json"}, flags...)...)
		dec := json.NewDecoder(strings.NewReader(out))
		var rep files.LsJSON
		err := dec.Decode(&rep)
		if err != nil || dec.More() || code == 0 || rep.OK || rep.Error == nil || rep.Error.Code != kit.CodeWord(code) || !strings.Contains(errs, rep.Error.Message) {
			t.Fatalf("cut after %d bytes: exit %d, %v, error %+v, stderr %q, stdout %.300s", tc.after, code, err, rep.Error, errs, out)
		}
		if got := len(rep.Entries) > 0 && len(rep.Entries) < n && rep.Type == "directory"; got != tc.some || !tc.some && (rep.Type != "" || rep.Entries == nil) {
			t.Errorf("cut after %d bytes: %d entries, type %q", tc.after, len(rep.Entries), rep.Type)
		}
	}
}

// cp of a local file whose stat size is 0 but which holds bytes (such
// as /proc/self/environ) sends it whole and says how many bytes; it is
// never uploaded empty with exit 0.
func TestCpUploadsAZeroSizeProcFileWhole(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	_, flags := filesEmu(t)
	const p = "/proc/self/environ" // this process's: runCLI runs in it
	want, err := os.ReadFile(p)
	if err != nil || len(want) == 0 {
		t.Fatalf("reading %s: %d bytes, %v", p, len(want), err)
	}
	code, out, errs := runCLI(t, append([]string{"cp", p, "rt-files:/content/environ", "--json"}, flags...)...)
	var sum files.CopySummary
	if code != 0 || json.Unmarshal([]byte(out), &sum) != nil || !sum.OK || sum.Bytes != int64(len(want)) {
		t.Fatalf("cp %s: exit %d, stdout %q, stderr %q; want %d bytes sent", p, code, out, errs, len(want))
	}
	code, out, errs = runCLI(t, append([]string{"ls", "rt-files:/content/environ", "--json"}, flags...)...)
	if code != 0 || !strings.Contains(out, `"size": `+strconv.Itoa(len(want))) {
		t.Fatalf("ls of the upload: exit %d, %q %q; want size %d", code, out, errs, len(want))
	}
}
