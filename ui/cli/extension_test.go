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

// colabdash NAME runs colabdash-NAME from PATH with its arguments as
// given, the profile in effect and its endpoint in its environment, and
// exits with its exit code; --help lists it; a built-in command is never
// shadowed by a program of its name.
func TestExtensionOnPathRuns(t *testing.T) {
	home := isolate(t)
	bin := t.TempDir()
	rec := t.TempDir()
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > \"$REC_DIR/argv\"\n" +
		"printf '%s\\n%s\\n' \"$COLABDASH_PROFILE\" \"$COLABDASH_ENDPOINT\" > \"$REC_DIR/env\"\necho hello from the extension\nexit 7\n"
	for _, name := range []string{"colabdash-hello", "colabdash-status"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("REC_DIR", rec)
	writeFile(t, filepath.Join(home, ".config", "colabdash", "config.yaml"),
		"profile: work\nprofiles:\n  work:\n    credentials: adc\n    endpoint: https://127.0.0.1:9/mcp\n")

	code, out, errs := runCLI(t, "hello", "a b", "--json", "$(touch PWNED)")
	if code != 7 || out != "hello from the extension\n" || errs != "" {
		t.Fatalf("colabdash hello: exit %d, stdout %q, stderr %q; want the extension's exit 7 and output", code, out, errs)
	}
	argv, _ := os.ReadFile(filepath.Join(rec, "argv"))
	if got := strings.Split(strings.TrimSuffix(string(argv), "\x00"), "\x00"); strings.Join(got, "|") != "a b|--json|$(touch PWNED)" {
		t.Errorf("the extension's args: %q", got)
	}
	env, _ := os.ReadFile(filepath.Join(rec, "env"))
	if string(env) != "work\nhttps://127.0.0.1:9/mcp\n" {
		t.Errorf("the extension's COLABDASH_PROFILE and COLABDASH_ENDPOINT: %q", env)
	}
	t.Setenv("COLABDASH_PROFILE", "default")
	runCLI(t, "hello")
	if env, _ := os.ReadFile(filepath.Join(rec, "env")); !strings.HasPrefix(string(env), "default\nhttps://") {
		t.Errorf("COLABDASH_PROFILE=default: the extension saw %q", env)
	}

	_, help, _ := runCLI(t, "--help")
	if !strings.Contains(help, "Extensions (colabdash-NAME programs on PATH") || !strings.Contains(help, "  hello ") {
		t.Errorf("--help does not list the extension:\n%s", help)
	}
	if strings.Contains(help, "  status  ") && strings.Contains(help, filepath.Join(bin, "colabdash-status")) {
		t.Errorf("--help lists a program shadowing the built-in status:\n%s", help)
	}
	os.Remove(filepath.Join(rec, "argv"))
	if code, _, _ := runCLI(t, "status", "--demo"); code != 0 {
		t.Errorf("status with a colabdash-status on PATH: exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(rec, "argv")); err == nil {
		t.Error("colabdash status ran the colabdash-status program")
	}
	if code, _, errs := runCLI(t, "nosuch"); code != 2 || !strings.Contains(errs, `unknown command "nosuch"`) {
		t.Errorf("no such command or extension: exit %d, stderr %q", code, errs)
	}
}

// A foreground plugin suspends the dashboard on a real terminal, runs with
// the selected runtime in its environment, and the dashboard comes back
// afterwards and quits normally.
func TestForegroundPluginSuspendsTheDashboard(t *testing.T) {
	bin := needBinary(t)
	home := isolate(t)
	rec := t.TempDir()
	script := writeFile(t, filepath.Join(rec, "plugin.sh"), "#!/bin/sh\nprintf '%s' \"$COLABDASH_RUNTIME\" > \"$REC_DIR/runtime\"\necho PLUGIN-RAN\n")
	if err := os.Chmod(script, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, ".config", "colabdash", "config.yaml"),
		"plugins:\n  rec:\n    key: J\n    description: record\n    scope: runtimes\n    command: "+script+"\n")
	s := startSilent(t, []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "REC_DIR=" + rec, "NO_COLOR=1"}, bin, "--demo")
	s.waitOutput(t, "RUNTIMES")
	mustContainOutput := func(want string) { t.Helper(); s.waitOutput(t, want) }
	mustContainOutput("record") // the footer lists the plugin
	mustContainOutput("›  rt-") // a runtime is selected: the key acts on what is on screen
	if _, err := s.ptm.WriteString("J"); err != nil {
		t.Fatal(err)
	}
	mustContainOutput("PLUGIN-RAN") // printed once the runtime is recorded
	got, _ := os.ReadFile(filepath.Join(rec, "runtime"))
	if !strings.HasPrefix(string(got), "rt-") {
		t.Fatalf("the plugin's COLABDASH_RUNTIME: %q\n%q", got, s.output())
	}
	mustContainOutput("plugin rec: done")
	if _, err := s.ptm.WriteString("q"); err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Wait(); err != nil {
		t.Fatalf("quit after the plugin: %v", err)
	}
}

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
