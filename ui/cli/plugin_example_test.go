//go:build unix

package cli

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The example in docs/configuration.md works as documented: the
// colabdash-jupyter script, run as an extension (as its plugin runs it),
// forwards the runtime's Jupyter, opens the URL in the browser (a fake
// xdg-open here) and serves it until it is ended.
func TestJupyterExampleOpensTheForwardedURL(t *testing.T) {
	skipUnderShort(t)
	home := isolate(t)
	doc, err := os.ReadFile(filepath.Join(repoRoot, "docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```sh\n#!/bin/sh\n# colabdash-jupyter")
	script, _, _ := strings.Cut(rest, "```")
	if !ok || script == "" {
		t.Fatal("no colabdash-jupyter example in docs/configuration.md")
	}
	bin, rec := t.TempDir(), t.TempDir()
	writeExec := func(name, body string) {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	writeExec("colabdash-jupyter", "#!/bin/sh\n# colabdash-jupyter"+script)
	opened := filepath.Join(rec, "opened")
	if err := syscall.Mkfifo(opened, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	// The browser: the URL goes into a FIFO the test reads.
	for _, name := range []string{"xdg-open", "open"} {
		writeExec(name, "#!/bin/sh\nprintf '%s\\n' \"$1\" > \""+opened+"\"\n")
	}
	if err := os.Symlink(binary(t), filepath.Join(bin, "colabdash")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "colabdash"), "jupyter", "rt-t4demo7k2p")
	cmd.Env = append(os.Environ(), "HOME="+home, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "COLABDASH_PROFILE=demo")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })

	lines := make(chan string, 2)
	go func() {
		defer close(lines)
		if l, err := bufio.NewReader(out).ReadString('\n'); err == nil {
			lines <- l
		}
		go io.Copy(io.Discard, out)
	}()
	browser := make(chan string, 1)
	go func() {
		b, _ := os.ReadFile(opened) // blocks until the fake browser writes
		browser <- strings.TrimSpace(string(b))
	}()
	var said, url string
	select {
	case said = <-lines:
	case <-time.After(waitTimeout):
		t.Fatal("the example printed nothing")
	}
	select {
	case url = <-browser:
	case <-time.After(waitTimeout):
		t.Fatalf("the browser was never opened; the example said %q", said)
	}
	if !strings.HasPrefix(said, "Jupyter of rt-t4demo7k2p: "+url) || !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.Contains(url, "token=") {
		t.Fatalf("said %q, opened %q", said, url)
	}
	resp, err := http.Get(strings.Replace(url, "/?token=", "/api/status?token=", 1))
	if err != nil {
		t.Fatalf("the forwarded Jupyter at %s: %v", url, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the forwarded Jupyter's /api/status: %s", resp.Status)
	}
}
