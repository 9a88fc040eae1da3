package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/state/config"
)

// The test binary doubles as the notify command: with helperEnv set it
// records what it was given (argv, stdin, the COLABDASH_EVENT_
// variables) into the file helperEnv names (not a COLABDASH_ name: the
// notifier drops those), or hangs with a child of its own when told to.
const helperEnv = "NOTIFY_TEST_HELPER_OUT"

func TestMain(m *testing.M) {
	if out := os.Getenv(helperEnv); out != "" {
		helper(out)
		return
	}
	os.Exit(m.Run())
}

func helper(out string) {
	stdin, _ := io.ReadAll(os.Stdin)
	rec := map[string]any{"args": os.Args[1:], "stdin": string(stdin)}
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "COLABDASH_") {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
	}
	rec["env"] = env
	if len(os.Args) > 1 && os.Args[1] == "hang" {
		child := exec.Command("sleep", "3600")
		_ = child.Start()
		rec["child"] = child.Process.Pid
	}
	b, _ := json.Marshal(rec)
	_ = os.WriteFile(out, b, 0o600)
	if len(os.Args) > 1 && os.Args[1] == "hang" {
		time.Sleep(time.Hour)
	}
	os.Exit(0)
}

// hasControl reports a C0 or C1 control (escape, bell, newline, CSI…) or
// a byte that is not UTF-8 (a terminal may read a lone 0x9b as CSI) in s.
func hasControl(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
			return true
		}
	}
	return false
}

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

var hostile = state.Event{Kind: state.EventJobEnded, Runtime: "rt-1\x1b]0;owned\x07", Job: "train;$(touch pwned)",
	Status: "exited 0", Text: "done\x1b[2J\nsecret-ya29.TOKEN\x9b31m", At: time.Unix(1_800_000_000, 0).UTC()}

func TestTerminalBytesPerMode(t *testing.T) {
	red := &api.Redactor{}
	red.Add("secret-ya29.TOKEN")
	cases := []struct {
		name, mode string
		vars       map[string]string
		start, end string // the framing; nothing else may hold an escape
		none       bool
	}{
		{"bell", state.NotifyBell, nil, "", "\a", false},
		{"osc9", state.NotifyOSC9, nil, "\x1b]9;", "\x1b\\\a", false},
		{"osc777", state.NotifyOSC777, nil, "\x1b]777;notify;", "\x1b\\\a", false},
		{"auto in iTerm2", state.NotifyAuto, map[string]string{"TERM_PROGRAM": "iTerm.app"}, "\x1b]9;", "\x1b\\\a", false},
		{"auto in foot", state.NotifyAuto, map[string]string{"TERM": "foot"}, "\x1b]777;notify;", "\x1b\\\a", false},
		{"auto elsewhere", state.NotifyAuto, map[string]string{"TERM": "xterm-256color"}, "", "\a", false},
		{"tmux passthrough", state.NotifyOSC9, map[string]string{"TMUX": "/tmp/tmux-0/default,1,0"}, "\x1bPtmux;\x1b\x1b]9;", "\x1b\x1b\\\x1b\\\a", false},
		{"off", state.NotifyOff, nil, "", "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := New(Options{Settings: config.Notify{Terminal: c.mode}, Getenv: env(c.vars), Redactor: red})
			b := string(n.TerminalBytes(hostile))
			if c.none {
				if b != "" {
					t.Fatalf("off wrote %q", b)
				}
				return
			}
			if !strings.HasPrefix(b, c.start) || !strings.HasSuffix(b, c.end) {
				t.Fatalf("bytes %q: want %q … %q", b, c.start, c.end)
			}
			inner := strings.TrimSuffix(strings.TrimPrefix(b, c.start), c.end)
			if hasControl(inner) {
				t.Errorf("server text carried a control into the terminal: %q", inner)
			}
			if strings.Contains(b, "ya29.TOKEN") {
				t.Errorf("a secret reached the terminal: %q", b)
			}
			if c.start != "" && !strings.Contains(inner, "train") {
				t.Errorf("the notification does not name the job: %q", inner)
			}
			if c.mode == state.NotifyOSC777 && strings.Count(inner, ";") != 1 {
				t.Errorf("osc777 must have exactly title;body, got %q", inner)
			}
		})
	}
}

func TestEachEventIsToldOnceAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	a := New(Options{StateDir: dir, Getenv: env(nil)})
	b := New(Options{StateDir: dir, Getenv: env(nil)}) // a second dashboard on the same machine
	ev := state.Event{Kind: state.EventJobEnded, Runtime: "rt-1", Job: "train-abc123", Status: "exited 0"}
	if d := a.Notify(context.Background(), ev); !d.Told || !bytes.Contains(d.Terminal, []byte("\a")) {
		t.Fatalf("first sight: %+v", d)
	}
	again := ev
	again.Text, again.At = "seen at the next refresh", time.Now()
	if d := a.Notify(context.Background(), again); d.Told {
		t.Errorf("the same process told the event twice: %+v", d)
	}
	if d := b.Notify(context.Background(), ev); d.Told {
		t.Errorf("a second process told the event again: %+v", d)
	}
	other := ev
	other.Job = "eval-xyz789"
	if d := b.Notify(context.Background(), other); !d.Told {
		t.Errorf("another job's end was not told: %+v", d)
	}
}

// A claims directory that is a symbolic link is not followed: each
// process tells the event (rather than lose it) and nothing is made
// where the link points.
func TestLinkedClaimsDirectoryTellsAndFollowsNothing(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(dir, ClaimsDir)); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	ev := state.Event{Kind: state.EventJobEnded, Runtime: "rt-1", Job: "train-abc123", Status: "exited 0"}
	for _, n := range []*Notifier{New(Options{StateDir: dir, Getenv: env(nil)}), New(Options{StateDir: dir, Getenv: env(nil)})} {
		if d := n.Notify(context.Background(), ev); !d.Told {
			t.Errorf("a process behind a linked claims directory did not tell the event: %+v", d)
		}
	}
	if es, _ := os.ReadDir(elsewhere); len(es) != 0 {
		t.Errorf("markers made through the link: %v", es)
	}
}

func TestMutedKindRingsNothingAndRunsNothing(t *testing.T) {
	out := filepath.Join(t.TempDir(), "rec.json")
	n := New(Options{Getenv: env(nil), Environ: []string{helperEnv + "=" + out},
		Settings: config.Notify{Command: os.Args[0], Mute: []state.EventKind{state.EventRuntimeIdle}}})
	d := n.Notify(context.Background(), state.Event{Kind: state.EventRuntimeIdle, Runtime: "rt-1"})
	if !d.Told || !d.Muted || d.Terminal != nil || d.Command != "" {
		t.Fatalf("muted event: %+v", d)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("the command ran for a muted event")
	}
}

func TestCommandGetsTheEventWithoutAShell(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "rec.json")
	red := &api.Redactor{}
	red.Add("secret-ya29.TOKEN")
	n := New(Options{Getenv: env(nil), Redactor: red, Environ: []string{helperEnv + "=" + out, "COLABDASH_TOKEN=leak", "PATH=" + os.Getenv("PATH")},
		Settings: config.Notify{Command: os.Args[0], Args: []string{"--from", "colabdash"}}})
	t.Chdir(dir)
	d := n.Notify(context.Background(), hostile)
	if d.Command != "ran" {
		t.Fatalf("command outcome %q", d.Command)
	}
	var rec struct {
		Args  []string
		Stdin string
		Env   map[string]string
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(rec.Args) != "[--from colabdash]" {
		t.Errorf("argv %q: the server's text must never be an argument", rec.Args)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Error("a shell ran the job's name")
	}
	var got eventJSON
	if err := json.Unmarshal([]byte(rec.Stdin), &got); err != nil {
		t.Fatalf("stdin is not the event's JSON: %q", rec.Stdin)
	}
	if got.Kind != "job-ended" || got.Job != "train;$(touch pwned)" || got.Status != "exited 0" {
		t.Errorf("stdin event %+v", got)
	}
	if rec.Env[EnvJob] != got.Job || rec.Env[EnvKind] != "job-ended" {
		t.Errorf("environment %v", rec.Env)
	}
	if _, ok := rec.Env["COLABDASH_TOKEN"]; ok {
		t.Error("a COLABDASH_ variable of the caller's environment reached the command")
	}
	for _, v := range []string{strings.TrimSuffix(rec.Stdin, "\n"), rec.Env[EnvText], rec.Env[EnvRuntime]} {
		if hasControl(v) || strings.Contains(v, "ya29.TOKEN") {
			t.Errorf("unsanitized or unredacted text reached the command: %q", v)
		}
	}
}

// A command that hangs is ended at its timeout, with the children it
// started. The timeout starts at 1 s and doubles (to 16 s) while the
// helper did not even get to start its child in time: a loaded machine
// can take that long to start a race-instrumented test binary.
func TestHangingCommandIsEndedWithItsChildren(t *testing.T) {
	var b []byte
	for timeout := time.Second; ; timeout *= 2 {
		out := filepath.Join(t.TempDir(), "rec.json")
		n := New(Options{Getenv: env(nil), Environ: []string{helperEnv + "=" + out, "PATH=" + os.Getenv("PATH")},
			Settings: config.Notify{Command: os.Args[0], Args: []string{"hang"}, Timeout: timeout}})
		d := n.Notify(context.Background(), state.Event{Kind: state.EventJobEnded, Job: "j"})
		if !strings.HasPrefix(d.Command, "timed out") {
			t.Fatalf("a hanging command: %q", d.Command)
		}
		var err error
		if b, err = os.ReadFile(out); err == nil {
			break
		}
		if timeout >= 16*time.Second {
			t.Fatalf("the helper never started its child: %v", err)
		}
	}
	var rec struct{ Child int }
	_ = json.Unmarshal(b, &rec)
	if rec.Child == 0 {
		t.Fatal("the helper did not start its child")
	}
	// The group was killed: the child is gone (or a zombie waiting for
	// init, which signal 0 still finds: read its state instead).
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := os.ReadFile("/proc/" + strconv.Itoa(rec.Child) + "/stat")
		if err != nil || strings.Contains(string(st), ") Z ") {
			return
		}
		if err := syscall.Kill(rec.Child, 0); err != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the hanging command's child outlived its timeout")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
