package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/colabfaketest"
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
