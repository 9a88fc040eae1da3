package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/colabfaketest"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// Without a terminal the shell refuses at once with one line, exit 2;
// --readonly refuses it too.
func TestShellNeedsATerminal(t *testing.T) {
	isolate(t)
	for _, args := range [][]string{{"shell", "rt-x", "--demo"}, {"shell", "rt-x", "--demo", "--readonly"}, {"tty", "rt-x", "--demo"}} {
		code, out, errs := runCLI(t, args...)
		if code != kit.ExitUsage || out != "" || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
		want := "terminal"
		if strings.Contains(strings.Join(args, " "), "readonly") {
			want = "--readonly"
		}
		if !strings.Contains(errs, want) {
			t.Errorf("%v: stderr %q lacks %q", args, errs, want)
		}
	}
}

// Without a terminal, and with `-- COMMAND`, the refusal names the way
// that runs a shell command from a script: exec with IPython's "!", on
// the runtime named, with the command quoted for the shell and the
// global flags repeated.
func TestShellPointsAtExecForACommand(t *testing.T) {
	isolate(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"shell", "rt-x", "--demo", "--", "ls", "-la"},
			`shell runs no command (it is interactive only); to run a shell command, use: colabdash exec rt-x -c '!ls -la' --demo (IPython`},
		{[]string{"shell", "rt-x", "--demo", "--", "echo", "a b"},
			`use: colabdash exec rt-x -c '!echo '\''a b'\''' --demo`},
		{[]string{"shell", "rt-x", "--demo"},
			`shell needs a terminal on stdin and stdout; to run a shell command, use: colabdash exec rt-x -c '!ls -la' --demo`},
		{[]string{"shell", "--demo", "--", "uname", "-a"},
			`use: colabdash exec RUNTIME -c '!uname -a' --demo`},
	} {
		code, out, errs := runCLI(t, c.args...)
		if code != kit.ExitUsage || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, out, errs, c.want)
		}
	}
}

// shellEmulator is an emulator with one runtime, rt-e2e, and a token file
// for the binary.
func shellEmulator(t *testing.T, o colabfake.Options) (srv *colabfake.Server, endpoint, home, tokenFile string) {
	t.Helper()
	home = isolate(t)
	srv, endpoint = colabfaketest.Start(t, o)
	if _, err := srv.AddRuntime(api.Runtime{Name: "runtimes/rt-e2e", ConnectionInfo: &api.ConnectionInfo{}}); err != nil {
		t.Fatal(err)
	}
	return srv, endpoint, home, writeFile(t, filepath.Join(home, "token.txt"), "fake\n")
}

// `colabdash shell` in a real terminal: the banner, a command and its
// output, exit 0 after `exit`; after a reclaim, exit 4 and the line says
// so.
func TestShellVerbInTmux(t *testing.T) {
	srv, endpoint, home, tokenFile := shellEmulator(t, colabfake.Options{})
	bin := binary(t)
	script := bin + " shell rt-e2e --endpoint " + endpoint + " --access-token-file " + tokenFile + "; echo exit=$?; read x"
	s := startTmux(t, 100, 30, homeEnv(home), "sh", "-c", "'"+script+"'")
	s.waitText("~. detaches")
	s.waitText(strings.TrimSpace(colabfake.TTYPrompt))
	s.text("echo from-the-runtime")
	s.keys("Enter")
	s.waitText("from-the-runtime\n")
	s.text("exit")
	s.keys("Enter")
	s.waitText("exited")
	s.waitText("exit=0")
	s.keys("Enter")
	s.waitExit()

	s = startTmux(t, 100, 30, homeEnv(home), "sh", "-c", "'"+script+"'")
	s.waitText(strings.TrimSpace(colabfake.TTYPrompt))
	srv.Reclaim("runtimes/rt-e2e")
	s.waitText("gone (reclaimed)")
	s.waitText("exit=4")

	// The proxy refusing even a renewed token is a credentials failure.
	if _, err := srv.AddRuntime(api.Runtime{Name: "runtimes/rt-e2e", ConnectionInfo: &api.ConnectionInfo{}}); err != nil {
		t.Fatal(err)
	}
	srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, PathPrefix: "colab/tty", Status: 404, Times: -1})
	s = startTmux(t, 100, 30, homeEnv(home), "sh", "-c", "'"+script+"'")
	s.waitText("refused the proxy token")
	s.waitText("exit=3")
}

// The dashboard's S: the dashboard is suspended for the shell in the same
// terminal, a command runs, and after `exit` the dashboard is back as it
// was (the runtime still selected, the details still open) with the
// shell's end in the status line.
func TestDashboardShellInTmux(t *testing.T) {
	_, endpoint, home, tokenFile := shellEmulator(t, colabfake.Options{})
	bin := binary(t)
	s := startTmux(t, 100, 30, homeEnv(home), bin, "--endpoint", endpoint, "--access-token-file", tokenFile)
	s.waitText("rt-e2e")
	s.keys("Enter")
	s.waitText("DETAILS · rt-e2e")
	s.keys("S")
	s.waitText("~. detaches")
	s.waitText(strings.TrimSpace(colabfake.TTYPrompt))
	s.text("echo inside-the-shell")
	s.keys("Enter")
	s.waitText("inside-the-shell\n")
	s.text("exit")
	s.keys("Enter")
	scr := s.waitText("shell on rt-e2e: exited")
	for _, want := range []string{"RUNTIMES 1", "›  rt-e2e", "DETAILS · rt-e2e", "url "} {
		if !strings.Contains(scr, want) {
			t.Errorf("dashboard lacks %q after the shell:\n%s", want, scr)
		}
	}
	if strings.Contains(scr, "inside-the-shell") {
		t.Errorf("the shell's output is left on the dashboard:\n%s", scr)
	}
	s.keys("q")
	s.waitExit()
}

// The shell's output is raw (the one exception to the sanitizer): a title
// sequence the remote prints retitles the pane; with --filter-osc it does
// not, and the rest of the output still arrives.
func TestShellRawOutputAndFilterOSCInTmux(t *testing.T) {
	_, endpoint, home, tokenFile := shellEmulator(t, colabfake.Options{})
	bin := binary(t)
	for _, filter := range []bool{false, true} {
		args := []string{bin, "shell", "rt-e2e", "--endpoint", endpoint, "--access-token-file", tokenFile}
		if filter {
			args = append(args, "--filter-osc")
		}
		s := startTmux(t, 100, 30, homeEnv(home), args...)
		s.tmux("set-option", "-t", s.name, "allow-rename", "on")
		s.waitText(strings.TrimSpace(colabfake.TTYPrompt))
		s.text(`printf '\e]2;retitled-by-runtime\a'`)
		s.keys("Enter")
		s.text("echo after-the-title")
		s.keys("Enter")
		s.waitText("after-the-title\n")
		title := s.display("#{pane_title}")
		if retitled := title == "retitled-by-runtime"; retitled == filter {
			t.Errorf("--filter-osc %v: pane title %q", filter, title)
		}
		s.text("exit")
		s.keys("Enter")
		s.waitExit()
	}
}

// ctrl+c while the shell is still connecting (the runtime's proxy is
// slow) gives up at once with exit 130, as ssh does before its session
// exists.
func TestShellCtrlCWhileConnectingInTmux(t *testing.T) {
	_, endpoint, home, tokenFile := shellEmulator(t, colabfake.Options{ProxyLatency: time.Hour})
	bin := binary(t)
	script := bin + " shell rt-e2e --endpoint " + endpoint + " --access-token-file " + tokenFile + "; echo exit=$?; read x"
	s := startTmux(t, 100, 30, homeEnv(home), "sh", "-c", "'"+script+"'")
	s.waitText("~. detaches")
	s.keys("C-c")
	s.waitText("interrupted while connecting to rt-e2e")
	s.waitText("exit=130")
}
