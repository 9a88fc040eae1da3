package config

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/colabdash/colabdash/state"
)

// DefaultNotifyTimeout is how long a notification command may run (10 s)
// unless notify.timeout says otherwise; MaxNotifyTimeout is the most it
// may ask for (2 min).
const (
	DefaultNotifyTimeout = 10 * time.Second
	MaxNotifyTimeout     = 2 * time.Minute
)

// Idle guard actions (config idleGuard.action).
const (
	// GuardWarn notifies once a runtime has been idle by every signal for
	// idleGuard.after.
	GuardWarn = "warn"
	// GuardDelete warns, then deletes the runtime after a last warning the
	// user can cancel from the dashboard (state.GuardGrace later).
	GuardDelete = "delete"
)

// Notify is the notify: section: how colabdash tells the user that
// something ended (state.Event).
type Notify struct {
	// Terminal is how a notification reaches the terminal: one of
	// state.NotifyModes (default auto).
	Terminal string
	// Command, when set, is run for every event not muted: without a
	// shell, with Args exactly as written, the event as JSON on its stdin
	// and in COLABDASH_EVENT_* variables, within Timeout.
	Command string
	Args    []string
	// Timeout bounds Command (default DefaultNotifyTimeout).
	Timeout time.Duration
	// Mute lists the kinds of event that neither ring nor run Command
	// (they still reach the event log).
	Mute []state.EventKind
}

// IdleGuard is the idleGuard: setting (top level, or a profile's, which
// replaces it): after After of idleness by every signal, warn or delete.
// After 0 is off (the default).
type IdleGuard struct {
	After  time.Duration
	Action string // GuardWarn (default) or GuardDelete
}

var notifyKeys = []string{"terminal", "command", "args", "timeout", "mute"}
var guardKeys = []string{"after", "action"}

// notify reads the notify: mapping.
func (p *cfgParser) notify(e entry) error {
	es, err := p.entries(e.val, "notify", notifyKeys)
	if err != nil {
		return err
	}
	n := &p.s.Notify
	for _, fe := range es {
		what := "notify." + fe.key
		p.mark(what, fe.knode)
		if fe.key == "args" {
			if n.Args, err = p.argList(fe.val, what); err != nil {
				return err
			}
			continue
		}
		if fe.key == "mute" {
			vals, err := p.strings(fe.val, what)
			if err != nil {
				return err
			}
			n.Mute = nil
			for _, v := range vals {
				if !state.ValidEventKind(v) {
					return p.errAt(fe.val, fmt.Sprintf("%s: %q is not accepted (accepted: %s)", what, v, kindList()))
				}
				n.Mute = append(n.Mute, state.EventKind(v))
			}
			continue
		}
		v, err := p.scalar(fe.val, what)
		if err != nil {
			return err
		}
		switch fe.key {
		case "terminal":
			v = strings.ToLower(v)
			if !slices.Contains(state.NotifyModes, v) {
				return p.errAt(fe.val, fmt.Sprintf("%s: %q is not accepted (accepted: %s)", what, v, strings.Join(state.NotifyModes, ", ")))
			}
			n.Terminal = v
		case "command":
			if n.Command, err = p.command(fe.val, what, v); err != nil {
				return err
			}
		case "timeout":
			if n.Timeout, err = p.timeout(fe.val, what, v, MaxNotifyTimeout); err != nil {
				return err
			}
		}
	}
	return nil
}

// idleGuard reads an idleGuard: mapping at path (idleGuard, or
// profiles.NAME.idleGuard) into g.
func (p *cfgParser) idleGuard(val ast.Node, path string, g *IdleGuard) error {
	es, err := p.entries(val, path, guardKeys)
	if err != nil {
		return err
	}
	*g = IdleGuard{Action: GuardWarn}
	for _, fe := range es {
		what := path + "." + fe.key
		p.mark(what, fe.knode)
		v, err := p.scalar(fe.val, what)
		if err != nil {
			return err
		}
		switch fe.key {
		case "after":
			d, perr := time.ParseDuration(v)
			if perr != nil || d < 0 || (d > 0 && d < time.Minute) {
				return p.errAt(fe.val, fmt.Sprintf("%s: %q is not accepted (accepted: a Go duration of at least 1m, such as 30m; 0 turns the guard off)", what, v))
			}
			g.After = d
		case "action":
			v = strings.ToLower(v)
			if v != GuardWarn && v != GuardDelete {
				return p.errAt(fe.val, fmt.Sprintf("%s: %q is not accepted (accepted: warn, delete)", what, v))
			}
			g.Action = v
		}
	}
	return nil
}

// strings reads a list of scalars (a single scalar is a list of one).
func (p *cfgParser) strings(n ast.Node, what string) ([]string, error) {
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		v, err := p.scalar(n, what)
		if err != nil || v == "" {
			return nil, err
		}
		return []string{v}, nil
	}
	out := make([]string, 0, len(seq.Values))
	for _, it := range seq.Values {
		v, err := p.scalar(it, what)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// The shape notify: and plugins: share, a program run without a shell:
// command (a path or a name looked up on PATH), args (a list, passed
// exactly as written) and timeout (a Go duration up to a maximum).

// command checks a command's value v (read from n, at path what): not
// blank.
func (p *cfgParser) command(n ast.Node, what, v string) (string, error) {
	if strings.TrimSpace(v) == "" {
		return "", p.errAt(n, what+": empty (accepted: a program's path or name; its arguments under args)")
	}
	return v, nil
}

// argList reads a command's args at n (path what): a list of strings.
func (p *cfgParser) argList(n ast.Node, what string) ([]string, error) {
	if _, ok := n.(*ast.SequenceNode); !ok {
		return nil, p.errAt(n, what+" must be a list of strings, e.g. [forward, --open]")
	}
	return p.strings(n, what)
}

// timeout parses a command's timeout v (read from n, at path what): a Go
// duration above zero and at most limit.
func (p *cfgParser) timeout(n ast.Node, what, v string, limit time.Duration) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 || d > limit {
		return 0, p.errAt(n, fmt.Sprintf("%s: %q is not accepted (accepted: a Go duration from 1s to %s)", what, v, shortDuration(limit)))
	}
	return d, nil
}

func kindList() string {
	names := make([]string, len(state.EventKinds))
	for i, k := range state.EventKinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// GuardFor returns the idle guard in effect for profile name: the
// profile's own when it set one, else the top-level setting.
func (s *Settings) GuardFor(name string) IdleGuard {
	if g, ok := s.profileGuards[name]; ok {
		return g
	}
	return s.IdleGuard
}

func notifySchema() *jsonschema.Schema {
	kinds := make([]any, len(state.EventKinds))
	for i, k := range state.EventKinds {
		kinds[i] = string(k)
	}
	modes := make([]any, len(state.NotifyModes))
	for i, m := range state.NotifyModes {
		modes[i] = m
	}
	return &jsonschema.Schema{Type: "object", AdditionalProperties: falseSchema(),
		Description: "how colabdash tells you that a job ended, a runtime went idle or away, or a token could not be renewed",
		Properties: map[string]*jsonschema.Schema{
			"terminal": {Type: "string", Enum: modes, Default: []byte(`"auto"`),
				Description: "bell, a desktop notification through the terminal (osc9, osc777), auto (the bell, and OSC 9 or 777 where the terminal is known to show it) or off"},
			"command": {Type: "string", MinLength: intp(1), Description: "a program run for each event: no shell; the event as JSON on stdin and in COLABDASH_EVENT_* variables"},
			"args":    {Type: "array", Items: &jsonschema.Schema{Type: "string"}, Description: "its arguments, passed as written (no shell, nothing substituted)"},
			"timeout": duration(fmt.Sprintf("how long the command may run, at most %s", shortDuration(MaxNotifyTimeout)), shortDuration(DefaultNotifyTimeout)),
			"mute": {Type: "array", Items: &jsonschema.Schema{Type: "string", Enum: kinds},
				Description: "kinds of event that neither ring nor run the command (the event log still has them)"},
		}}
}

func guardSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object", AdditionalProperties: falseSchema(),
		Description: "after a runtime has been idle by every signal for after, warn, or delete it after a last warning you can cancel; off unless after is set",
		Properties: map[string]*jsonschema.Schema{
			"after":  {Type: "string", Pattern: durationPattern, Description: "idle time before the guard acts, at least 1m (0 or absent: off)"},
			"action": {Type: "string", Enum: []any{GuardWarn, GuardDelete}, Default: []byte(`"warn"`), Description: "warn, or delete after a last warning"},
		}}
}

// renderNotify writes the notify: and idleGuard: sections the settings
// have (nothing when both are at their defaults).
func renderNotify(b *strings.Builder, s *Settings, from func(string) string) {
	n := s.Notify
	if n.Terminal != state.NotifyAuto || n.Command != "" || len(n.Mute) > 0 {
		fmt.Fprintf(b, "notify:\n  terminal: %s%s\n", n.Terminal, from("notify.terminal"))
		if n.Command != "" {
			fmt.Fprintf(b, "  command: %s%s\n", yamlString(n.Command), from("notify.command"))
			if len(n.Args) > 0 {
				q := make([]string, len(n.Args))
				for i, a := range n.Args {
					q[i] = yamlString(a)
				}
				fmt.Fprintf(b, "  args: [%s]%s\n", strings.Join(q, ", "), from("notify.args"))
			}
			fmt.Fprintf(b, "  timeout: %s%s\n", shortDuration(n.Timeout), from("notify.timeout"))
		}
		if len(n.Mute) > 0 {
			fmt.Fprintf(b, "  mute: [%s]%s\n", kindsText(n.Mute), from("notify.mute"))
		}
	}
	if s.IdleGuard.After > 0 {
		fmt.Fprintf(b, "idleGuard:\n  after: %s%s\n  action: %s%s\n", shortDuration(s.IdleGuard.After), from("idleGuard.after"), s.IdleGuard.Action, from("idleGuard.action"))
	}
}

func kindsText(ks []state.EventKind) string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return strings.Join(out, ", ")
}
