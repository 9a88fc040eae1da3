// Package plugin runs the config's plugins (state/config Plugin): a
// user's command bound to a dashboard key. A plugin runs without a shell
// (exec.Command with its args exactly as the config wrote them; nothing
// from a server is put in argv, where other local users could read it
// with ps); what is on screen reaches it only through the environment
// (Env). A foreground plugin suspends the dashboard (tea.ExecProcess); a
// background one runs within its timeout, its output kept to MaxOutput
// bytes for the event log. Either ends in one DoneMsg.
package plugin

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/ui/paint"
)

// The environment variables a plugin is given.
const (
	EnvRuntime  = "COLABDASH_RUNTIME"  // the selected runtime's id (rt-…)
	EnvSession  = "COLABDASH_SESSION"  // the selected session's id (scope sessions)
	EnvFile     = "COLABDASH_FILE"     // the selected file's path on the runtime (scope files)
	EnvURL      = "COLABDASH_URL"      // the runtime's Jupyter URL through the proxy (no token in it)
	EnvEndpoint = "COLABDASH_ENDPOINT" // the Colab MCP endpoint in use
	EnvProfile  = "COLABDASH_PROFILE"  // the profile in use
	EnvToken    = "COLABDASH_TOKEN"    // the proxy token: only for a plugin with token: true
)

// MaxOutput is how much of a background plugin's output (stdout and
// stderr together) is kept: its last MaxOutput bytes.
const MaxOutput = 16 << 10

// Selection is what is on screen when the plugin's key is pressed.
type Selection struct {
	Runtime, Session, File string
	URL, Token             string
	Endpoint, Profile      string
}

// Env is base (the dashboard's own environment, os.Environ()) without any
// COLABDASH_ variable, plus the selection's variables; EnvToken only when
// p.Token. A variable with no value (no session in the runtimes scope) is
// left out. The values are data, never parsed by colabdash or a shell.
func Env(base []string, p config.Plugin, sel Selection) []string {
	out := make([]string, 0, len(base)+7)
	for _, kv := range base {
		if !strings.HasPrefix(kv, "COLABDASH_") {
			out = append(out, kv)
		}
	}
	for _, kv := range [][2]string{{EnvRuntime, sel.Runtime}, {EnvSession, sel.Session}, {EnvFile, sel.File},
		{EnvURL, sel.URL}, {EnvEndpoint, sel.Endpoint}, {EnvProfile, sel.Profile}} {
		if kv[1] != "" {
			out = append(out, kv[0]+"="+kv[1])
		}
	}
	if p.Token && sel.Token != "" {
		out = append(out, EnvToken+"="+sel.Token)
	}
	return out
}

// Command is p as an *exec.Cmd under ctx: p.Command (a path, or a name
// looked up on PATH) with p.Args exactly as configured, and Env's
// environment. No shell is involved.
func Command(ctx context.Context, p config.Plugin, sel Selection, base []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, p.Command, p.Args...)
	cmd.Env = Env(base, p, sel)
	return cmd
}

// DoneMsg is a plugin's end: its name and target (the runtime), whether
// it ran in the background, its kept output (background only), whether
// its timeout ended it, and its error (nil: exit status 0).
type DoneMsg struct {
	Name, Target string
	Background   bool
	Output       string
	TimedOut     bool
	Err          error
}

// Foreground suspends the dashboard while p runs on the terminal (term's
// ExecProcess: the painter gives the terminal back first; nil: Bubble
// Tea's renderer draws) and then reports a DoneMsg.
func Foreground(ctx context.Context, p config.Plugin, sel Selection, base []string, term *paint.Painter) tea.Cmd {
	cmd := Command(ctx, p, sel, base)
	return term.ExecProcess(cmd, func(err error) tea.Msg {
		return DoneMsg{Name: p.Name, Target: sel.Runtime, Err: err}
	})
}

// Background runs p without the terminal (stdin empty), ending it after
// p.Timeout; the tea.Cmd blocks only in Bubble Tea's command goroutine,
// never in Update, and returns a DoneMsg with the last MaxOutput bytes of
// its output.
func Background(ctx context.Context, p config.Plugin, sel Selection, base []string) tea.Cmd {
	return func() tea.Msg {
		limit := p.Timeout
		if limit <= 0 {
			limit = config.DefaultPluginTimeout
		}
		ctx, cancel := context.WithTimeout(ctx, limit)
		defer cancel()
		cmd := Command(ctx, p, sel, base)
		var out tail
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.WaitDelay = time.Second // a child holding the pipes open does not hold us
		err := cmd.Run()
		return DoneMsg{Name: p.Name, Target: sel.Runtime, Background: true, Output: out.String(),
			TimedOut: errors.Is(ctx.Err(), context.DeadlineExceeded), Err: err}
	}
}

// tail keeps the last MaxOutput bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) > MaxOutput {
		p = p[len(p)-MaxOutput:]
	}
	if over := t.buf.Len() + len(p) - MaxOutput; over > 0 {
		t.buf.Next(over)
	}
	t.buf.Write(p)
	return n, nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}
