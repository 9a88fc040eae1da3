package cli

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/colabdash/colabdash/ui/cli/kit"
)

// runnableExample is a shell example of README or docs/ that CI runs: the
// marker line stands right before its ```sh fence (indented like it).
var runnableExample = regexp.MustCompile("(?ms)^([ \\t]*)<!-- runnable example: [^\\n]*-->\\n[ \\t]*```sh\\n(.*?)^[ \\t]*```")

// The examples README and docs mark runnable are run as written, by bash,
// with the real binary as `colabdash` on PATH, each in a directory of its
// own: an example that stops working (a renamed flag, a changed seed, an
// output a later line depends on) fails here. Each must exit 0 within a
// minute; its background jobs are ended with it.
func TestDocExamplesRun(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatal("bash is needed to run the documented examples")
	}
	bin := binary(t)
	binDir := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(binDir, "colabdash")); err != nil {
		t.Fatal(err)
	}
	pages, _ := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	ran := 0
	for _, page := range append([]string{filepath.Join(repoRoot, "README.md")}, pages...) {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range runnableExample.FindAllSubmatch(text, -1) {
			indent := string(m[1])
			var script strings.Builder
			for _, line := range strings.Split(string(m[2]), "\n") {
				script.WriteString(strings.TrimPrefix(line, indent) + "\n")
			}
			ran++
			t.Run(filepath.Base(page)+"#"+strconv.Itoa(i+1), func(t *testing.T) {
				runExample(t, binDir, freePorts(t, script.String()))
			})
		}
	}
	if ran < 2 {
		t.Fatalf("%d runnable examples found; README's tour and docs/scripting.md's emulator example are marked", ran)
	}
}

// loopbackPort is a fixed loopback port an example names (README's
// emulator listens on 127.0.0.1:8089, which reads better than :0).
var loopbackPort = regexp.MustCompile(`127\.0\.0\.1:([0-9]{2,5})\b`)

// freePorts gives each fixed loopback port script names a port that was
// free a moment ago, the same one wherever the script repeats it: an
// example run beside another program (or another copy of this suite)
// listening on the documented port is not a failure of the example.
func freePorts(t *testing.T, script string) string {
	t.Helper()
	chosen := map[string]string{}
	return loopbackPort.ReplaceAllStringFunc(script, func(addr string) string {
		port := loopbackPort.FindStringSubmatch(addr)[1]
		if port == "0" {
			return addr
		}
		if _, ok := chosen[port]; !ok {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			chosen[port] = strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
			_ = l.Close()
		}
		return "127.0.0.1:" + chosen[port]
	})
}

// runExample runs script with bash -e in a fresh directory, HOME and
// state, and fails the test with its output unless it exits 0.
func runExample(t *testing.T, binDir, script string) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-e", "-c", script)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + binDir + ":/usr/bin:/bin", "HOME=" + dir, "XDG_STATE_HOME=" + filepath.Join(dir, "state"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "NO_COLOR=1"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the example's background jobs go with it
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// A job the example left running holds its output open: Wait gives
	// up on it soon after bash exited, and the job is killed below.
	cmd.WaitDelay = 2 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if cmd.Process != nil {
		// The next example may listen on the same port: wait until
		// every process of this one is gone.
		pg := -cmd.Process.Pid
		_ = syscall.Kill(pg, syscall.SIGKILL)
		for end := time.Now().Add(10 * time.Second); syscall.Kill(pg, 0) == nil; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("the example's processes still run 10 s after SIGKILL (example error %v):\n%s\noutput:\n%s", err, script, out.String())
			}
		}
	}
	if err != nil {
		t.Errorf("example failed (%v):\n%s\noutput:\n%s", err, script, out.String())
	}
}

// Field trial: README's emulator example wrote "anything" to token.txt;
// the redactor then masked that word everywhere, and delete asked
// "Type y to delete ([redacted] else cancels)". Every token README tells
// users to write is used as the access token here, and the questions
// colabdash asks must still read as written.
// readDocs is README.md and every page of docs/ (not the generated
// references), one after the other: where the examples a user copies are.
func readDocs(t *testing.T) []byte {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no docs/*.md pages (%v)", err)
	}
	var all []byte
	for _, p := range append([]string{filepath.Join("..", "..", "README.md")}, pages...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		all = append(append(all, b...), '\n')
	}
	return all
}

func TestReadmeTokensDoNotCollideWithProse(t *testing.T) {
	readme := readDocs(t)
	toks := regexp.MustCompile(`(?m)^echo (\S+) > token\.txt$`).FindAllStringSubmatch(string(readme), -1)
	if len(toks) == 0 {
		t.Fatal("README and docs have no `echo TOKEN > token.txt` example any more: update this test")
	}
	for _, m := range toks {
		e := demoVerbEnv(t)
		e.flags[len(e.flags)-1] = writeFile(t, filepath.Join(e.home, "token.txt"), m[1]+"\n")
		for _, args := range [][]string{{"delete", "rt-cpu"}, {"session", "close", "rt-t4/notebook-ab12cd34", "--force"}} {
			code, _, errs := e.runTerm(term{in: "n\n", inTTY: true, errTTY: true}, args...)
			if code != kit.ExitFailure || strings.Contains(errs, "[redacted]") || !strings.Contains(errs, "(anything else cancels)") {
				t.Errorf("token %q from README: %v asks %q", m[1], args, errs)
			}
		}
	}
}

// Field trial: README's curl example appended /api/kernels to
// `colabdash url`, which ends in "/", so it asked for //api/kernels (the
// emulator answered 307) and the emulator does not serve api/kernels at
// all. The example's request, built as a shell would build it, must be
// answered 200 by the emulator's runtime proxy, with no double slash.
func TestReadmeCurlExampleWorks(t *testing.T) {
	readme := readDocs(t)
	m := regexp.MustCompile(`curl -H "X-Colab-Runtime-Proxy-Token: \$\(colabdash token rt-abc\)" "(\$\{url%/\}|\$\(colabdash url rt-abc\))(/[^"]*)"`).FindStringSubmatch(string(readme))
	if m == nil {
		t.Fatal("README and docs have no curl example with the proxy token any more: update this test")
	}
	e := demoVerbEnv(t)
	_, base, _ := e.run("url", "rt-t4")
	_, tok, _ := e.run("token", "rt-t4")
	base, tok = strings.TrimSpace(base), strings.TrimSpace(tok)
	if m[1] == "${url%/}" {
		base = strings.TrimSuffix(base, "/")
	}
	u := base + m[2]
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Colab-Runtime-Proxy-Token", tok)
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if strings.Contains(strings.TrimPrefix(u, "http://"), "//") || resp.StatusCode != http.StatusOK {
		t.Errorf("README's curl example asks for %s: HTTP %d", u, resp.StatusCode)
	}
}
