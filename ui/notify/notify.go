// Package notify tells the user about a state.Event: the terminal's bell
// or a desktop notification through the terminal (OSC 9, OSC 777; wrapped
// for tmux when it runs inside tmux), the user's notify command, and the
// event log. Each event is told once: a process remembers the events it
// told, and processes sharing a state directory claim each event there
// first (an exclusively created marker file), so two dashboards watching
// one runtime ring once.
//
// Everything an event carries may come from a server: the terminal gets
// it only as plain printable text (controls removed, then redacted and
// bounded), the command gets it on stdin as JSON and in environment
// variables, never in its arguments, and runs without a shell within its
// timeout, its whole process group ended when the time is up.
package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/safefile/marker"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/ui/termtext"
)

// MaxText bounds the title and body a terminal notification carries
// (runes, after sanitizing).
const MaxText = 200

// ClaimsDir is the directory, below the state directory, of the markers
// by which processes claim an event; markers older than ClaimsKept are
// removed when a Notifier is built.
const (
	ClaimsDir  = "notified"
	ClaimsKept = 7 * 24 * time.Hour
)

// The environment variables the notify command is given.
const (
	EnvKind    = "COLABDASH_EVENT"         // the event's kind (job-ended, …)
	EnvRuntime = "COLABDASH_EVENT_RUNTIME" // the runtime's id
	EnvJob     = "COLABDASH_EVENT_JOB"     // the job's id
	EnvStatus  = "COLABDASH_EVENT_STATUS"  // exited 0, killed by signal 15, lost, …
	EnvText    = "COLABDASH_EVENT_TEXT"    // the sentence for people
	EnvTitle   = "COLABDASH_EVENT_TITLE"   // the notification's title
)

// Options build a Notifier.
type Options struct {
	// Settings are the config's notify: section.
	Settings config.Notify
	// Getenv reads the environment (TERM, TERM_PROGRAM, TMUX,
	// KITTY_WINDOW_ID, WT_SESSION); nil: os.Getenv.
	Getenv func(string) string
	// Environ is the command's base environment (nil: os.Environ()); any
	// COLABDASH_ variable in it is dropped.
	Environ []string
	// StateDir is colabdash's state directory ("": events are told once
	// per process only).
	StateDir string
	// Redactor cleans every text (nil: none known).
	Redactor *api.Redactor
	// Redact, when set, cleans every text after Redactor (the
	// dashboard's Options.Redact).
	Redact func(string) string
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Delivery is what Notify did with an event, for the event log.
type Delivery struct {
	// Told is false when the event had been told already (by this
	// process or another): nothing else was done.
	Told bool
	// Muted: its kind is muted (it rang nothing and ran no command).
	Muted bool
	// Terminal is the bytes for the terminal (bell, OSC), nil for none;
	// the caller writes them where its screen is.
	Terminal []byte
	// Command is the command's outcome: "" (none configured or muted),
	// "ran", "exit N", "timed out after D", or why it could not start.
	Command string
}

// Notifier tells events. It is safe for concurrent use.
type Notifier struct {
	o    Options
	via  string // the resolved terminal mode
	tmux bool

	mu   sync.Mutex
	told map[string]bool
	kept map[string]bool // the keeps this process recorded (keep.go)
}

// New builds a Notifier and removes claim (and keep) markers older than
// ClaimsKept.
func New(o Options) *Notifier {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Environ == nil {
		o.Environ = os.Environ()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Settings.Terminal == "" {
		o.Settings.Terminal = state.NotifyAuto
	}
	if o.Settings.Timeout <= 0 {
		o.Settings.Timeout = config.DefaultNotifyTimeout
	}
	term := o.Getenv("TERM")
	if o.Getenv("WT_SESSION") != "" {
		term = "wt"
	}
	n := &Notifier{o: o, told: map[string]bool{}, kept: map[string]bool{},
		via:  state.NotifyVia(o.Settings.Terminal, o.Getenv("TERM_PROGRAM"), term, o.Getenv("KITTY_WINDOW_ID") != ""),
		tmux: o.Getenv("TMUX") != ""}
	n.claims().Prune(o.Now().Add(-ClaimsKept))
	return n
}

// Notify tells ev once: it claims the event (Delivery.Told false when it
// was told before), and unless its kind is muted returns the terminal's
// bytes and runs the command (blocking until it ends or its timeout: run
// Notify off the dashboard's Update, in a tea.Cmd).
func (n *Notifier) Notify(ctx context.Context, ev state.Event) Delivery {
	if !n.claim(ev.Key()) {
		return Delivery{}
	}
	d := Delivery{Told: true}
	if state.Muted(n.o.Settings.Mute, ev.Kind) {
		d.Muted = true
		return d
	}
	d.Terminal = n.TerminalBytes(ev)
	if n.o.Settings.Command != "" {
		d.Command = n.run(ctx, ev)
	}
	return d
}

// claims are the markers of the events told, in ClaimsDir; keeps share
// the directory (keep.go).
func (n *Notifier) claims() marker.Dir {
	return marker.Dir{State: n.o.StateDir, Name: ClaimsDir}
}

// claim reports whether this process is the first to tell the event key.
// A marker that cannot be made (no state directory, ClaimsDir a link or
// a link at the marker's name, a disk error) grants it: tell it rather
// than lose it.
func (n *Notifier) claim(key string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.told[key] {
		return false
	}
	n.told[key] = true
	created, err := n.claims().Create(key)
	return created || err != nil
}

// plain is s as a notification may carry it: redacted, one line of
// printable text without controls (termtext's sanitizer, then any escape
// or control left removed), at most MaxText runes, and without the
// character that ends an OSC field in sep's place.
func (n *Notifier) plain(s, sep string) string {
	if n.o.Redactor != nil {
		s = n.o.Redactor.Redact(s)
	}
	if n.o.Redact != nil {
		s = n.o.Redact(s)
	}
	s = termtext.Line(s)
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return -1
		}
		return r
	}, s)
	if sep != "" {
		s = strings.ReplaceAll(s, sep, ",")
	}
	if rs := []rune(s); len(rs) > MaxText {
		s = string(rs[:MaxText-1]) + "…"
	}
	return s
}

// TerminalBytes is what ev puts on the terminal in the resolved mode:
// the bell, and before it an OSC 9 or OSC 777 notification, wrapped in
// tmux's passthrough when inside tmux (tmux shows the bell itself). Off:
// nil.
func (n *Notifier) TerminalBytes(ev state.Event) []byte {
	var osc string
	switch n.via {
	case state.NotifyOff:
		return nil
	case state.NotifyOSC9:
		osc = "\x1b]9;" + n.plain(ev.Title()+": "+ev.Text, "") + "\x1b\\"
	case state.NotifyOSC777:
		osc = "\x1b]777;notify;" + n.plain(ev.Title(), ";") + ";" + n.plain(ev.Text, "") + "\x1b\\"
	}
	if osc != "" && n.tmux {
		osc = "\x1bPtmux;" + strings.ReplaceAll(osc, "\x1b", "\x1b\x1b") + "\x1b\\"
	}
	return []byte(osc + "\a")
}

// eventJSON is the event as the command reads it on stdin.
type eventJSON struct {
	Kind    string    `json:"kind"`
	Runtime string    `json:"runtime,omitempty"`
	Job     string    `json:"job,omitempty"`
	Status  string    `json:"status,omitempty"`
	Title   string    `json:"title"`
	Text    string    `json:"text"`
	At      time.Time `json:"at"`
}

// run runs the notify command for ev and words its outcome.
func (n *Notifier) run(ctx context.Context, ev state.Event) string {
	s := n.o.Settings
	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	j := eventJSON{Kind: string(ev.Kind), Runtime: n.plain(ev.Runtime, ""), Job: n.plain(ev.Job, ""), Status: n.plain(ev.Status, ""),
		Title: n.plain(ev.Title(), ""), Text: n.plain(ev.Text, ""), At: ev.At}
	body, _ := json.Marshal(j)
	cmd := exec.CommandContext(ctx, s.Command, s.Args...)
	cmd.Stdin = bytes.NewReader(append(body, '\n'))
	cmd.Env = n.env(j)
	setGroup(cmd)
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	var xe *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return "timed out after " + s.Timeout.String()
	case errors.As(err, &xe):
		return "exit " + strings.TrimPrefix(xe.ProcessState.String(), "exit status ")
	case err != nil:
		return n.plain(err.Error(), "")
	}
	return "ran"
}

// env is the command's environment: the base without COLABDASH_
// variables, and the event's.
func (n *Notifier) env(j eventJSON) []string {
	out := make([]string, 0, len(n.o.Environ)+6)
	for _, kv := range n.o.Environ {
		if !strings.HasPrefix(kv, "COLABDASH_") {
			out = append(out, kv)
		}
	}
	for _, kv := range [][2]string{{EnvKind, j.Kind}, {EnvRuntime, j.Runtime}, {EnvJob, j.Job}, {EnvStatus, j.Status}, {EnvText, j.Text}, {EnvTitle, j.Title}} {
		if kv[1] != "" {
			out = append(out, kv[0]+"="+kv[1])
		}
	}
	return out
}
