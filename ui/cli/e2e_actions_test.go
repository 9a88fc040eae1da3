package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// actPane drives the real binary in a detached tmux server of its own
// (private socket), reading outcomes from the screen.
type actPane struct {
	t      *testing.T
	socket string
}

func (p *actPane) tmux(args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-L", p.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	return string(out), err
}

func (p *actPane) screen() string {
	out, _ := p.tmux("capture-pane", "-p", "-t", "e2e")
	return out
}

// waitFor polls the screen until it contains want (10 s at most).
func (p *actPane) waitFor(want string) string {
	p.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := p.screen()
		if strings.Contains(s, want) {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("screen never showed %q:\n%s", want, s)
		}
		time.Sleep(40 * time.Millisecond)
	}
}

// keys sends tmux key names ("Enter", "Escape", "Down") or literal text.
func (p *actPane) keys(keys ...string) {
	p.t.Helper()
	if out, err := p.tmux(append([]string{"send-keys", "-t", "e2e"}, keys...)...); err != nil {
		p.t.Fatalf("send-keys: %v %s", err, out)
	}
}

func (p *actPane) text(s string) {
	p.t.Helper()
	if out, err := p.tmux("send-keys", "-t", "e2e", "-l", s); err != nil {
		p.t.Fatalf("send-keys: %v %s", err, out)
	}
}

// afterDialog waits out the dialog's grace period (keys typed before a
// dialog could be read are ignored by design).
func afterDialog() { time.Sleep(450 * time.Millisecond) }

// The end-to-end path in --demo: create a runtime, open a session,
// run print(1), delete the runtime — each outcome read from the screen.
func TestE2EActionsDemo(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	bin := binary(t)
	home := isolate(t)
	state := filepath.Join(home, "state")
	p := &actPane{t: t, socket: fmt.Sprintf("colabdash-act-%d-%d", os.Getpid(), time.Now().UnixNano())}
	cmd := fmt.Sprintf("env HOME=%s XDG_STATE_HOME=%s GOOGLE_APPLICATION_CREDENTIALS= NO_COLOR=1 TERM=xterm-256color %s --demo",
		home, state, bin)
	if out, err := p.tmux("new-session", "-d", "-s", "e2e", "-x", "120", "-y", "40", cmd); err != nil {
		t.Fatalf("tmux new-session: %v %s", err, out)
	}
	t.Cleanup(func() { p.tmux("kill-server") })

	p.waitFor("rt-t4demo7k2p")

	// Create: CPU (one accelerator: skipped), STANDARD, latest, id e2e-rt.
	p.keys("n")
	p.waitFor("New runtime: variant")
	afterDialog()
	p.keys("Enter") // CPU
	p.waitFor("New runtime: shape")
	afterDialog()
	p.keys("Enter") // STANDARD
	p.waitFor("runtime version")
	afterDialog()
	p.keys("Enter")
	p.waitFor("runtime id")
	afterDialog()
	p.text("e2e-rt")
	p.waitFor("✓ valid")
	p.keys("Enter")
	p.waitFor("+ e2e-rt") // the create row shows the requested runtime id
	p.waitFor("created e2e-rt (CPU/STANDARD)")
	// Demo creates are remembered in memory only: the user's state dir is
	// left alone, so a demo spec never becomes the real account's N.
	if b, err := os.ReadFile(filepath.Join(state, "colabdash", "last-spec.json")); err == nil {
		t.Fatalf("demo mode wrote the last spec to the state dir: %q", b)
	}

	// Open a session on it.
	p.keys("o")
	p.waitFor("Open a session on e2e-rt")
	afterDialog()
	p.text("e2e-sess")
	p.keys("Enter")
	p.waitFor("opened session e2e-sess")

	// Run print(1).
	p.keys("e")
	p.waitFor("RUN CODE · e2e-rt")
	p.text("print(1)")
	p.keys("Enter")
	s := p.waitFor("✓ done")
	if !strings.Contains(s, "In [e2e-sess]: print(1)") || !strings.Contains(s, "\n  1") {
		t.Fatalf("no output 1:\n%s", s)
	}
	p.keys("Escape")
	p.waitFor("RUNTIMES")

	// Delete it: Enter cancels, y deletes.
	p.keys("d")
	p.waitFor("Delete runtime e2e-rt?")
	afterDialog()
	p.keys("Enter")
	p.waitFor("delete cancelled")
	p.keys("d")
	p.waitFor("Delete runtime e2e-rt?")
	afterDialog()
	p.keys("y")
	p.waitFor("deleted e2e-rt")

	p.keys("q")
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if out, err := p.tmux("has-session", "-t", "e2e"); err != nil || strings.Contains(out, "can't find") {
			return
		}
		time.Sleep(40 * time.Millisecond)
	}
	t.Fatalf("q did not quit:\n%s", p.screen())
}
