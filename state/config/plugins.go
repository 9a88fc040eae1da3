package config

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Plugin scopes: where a plugin's key is read and what it is given.
const (
	// PluginScopeRuntimes: the runtimes table; the selected runtime.
	PluginScopeRuntimes = "runtimes"
	// PluginScopeSessions: the sessions pane; the selected session and
	// its runtime.
	PluginScopeSessions = "sessions"
	// PluginScopeFiles: the files pane; the selected file and its runtime.
	PluginScopeFiles = "files"
)

// PluginScopes are the scopes a plugin may have, in help order.
var PluginScopes = []string{PluginScopeRuntimes, PluginScopeSessions, PluginScopeFiles}

// DefaultPluginTimeout is how long a background plugin may run (30 s)
// unless its timeout says otherwise; MaxPluginTimeout is the most it may
// ask for (10 min).
const (
	DefaultPluginTimeout = 30 * time.Second
	MaxPluginTimeout     = 10 * time.Minute
)

// Plugin is one user command bound to a dashboard key (config plugins:,
// in k9s's mould). colabdash runs Command with Args exactly as written,
// without a shell, and passes the selection in the environment
// (COLABDASH_RUNTIME, COLABDASH_SESSION, COLABDASH_URL, COLABDASH_FILE,
// COLABDASH_ENDPOINT, COLABDASH_PROFILE; COLABDASH_TOKEN only with Token).
type Plugin struct {
	// Name is the plugin's key in the plugins map (letters, digits, - and _).
	Name string
	// Key is the dashboard key (a Bubble Tea key name such as ctrl+j or
	// J); it may not be one a built-in action of its scope already has.
	Key string
	// Description is the help text ("" shows the name).
	Description string
	// Scope is PluginScopeRuntimes, PluginScopeSessions or PluginScopeFiles.
	Scope string
	// Command is the program (a path, or a name looked up on PATH) and
	// Args its arguments, passed as given.
	Command string
	Args    []string
	// Confirm asks before running; Dangerous refuses it under --readonly;
	// Background runs it without suspending the dashboard, within Timeout,
	// its output going to the event log; Token adds COLABDASH_TOKEN (the
	// runtime's proxy token) to its environment.
	Confirm, Dangerous, Background, Token bool
	// Timeout bounds a background plugin (default DefaultPluginTimeout).
	Timeout time.Duration
}

var pluginKeys = []string{"key", "description", "scope", "command", "args", "confirm", "dangerous", "background", "token", "timeout"}

// pluginNameRE is what a plugin's name may be.
var pluginNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,63}$`) })

// plugins reads plugins: a mapping of name to plugin, kept in file order.
func (p *cfgParser) plugins(e entry) error {
	es, err := p.entries(e.val, "plugins", nil)
	if err != nil {
		return err
	}
	for _, pe := range es {
		path := "plugins." + pe.key
		p.mark(path, pe.knode)
		if !pluginNameRE().MatchString(pe.key) {
			return p.errAt(pe.knode, fmt.Sprintf("plugin name %q is not accepted (accepted: letters, digits, - and _)", pe.key))
		}
		fes, err := p.entries(pe.val, path, pluginKeys)
		if err != nil {
			return err
		}
		pl := Plugin{Name: pe.key, Timeout: DefaultPluginTimeout}
		for _, fe := range fes {
			p.mark(path+"."+fe.key, fe.knode)
			if err := p.pluginField(&pl, path, fe); err != nil {
				return err
			}
		}
		switch {
		case pl.Key == "":
			return p.errAt(pe.knode, path+": no key (accepted: a key such as ctrl+j or J)")
		case pl.Command == "":
			return p.errAt(pe.knode, path+": no command (accepted: a program's path or name, its arguments under args)")
		case pl.Scope == "":
			return p.errAt(pe.knode, path+": no scope (accepted: "+strings.Join(PluginScopes, ", ")+")")
		}
		p.s.Plugins = append(p.s.Plugins, pl)
	}
	return nil
}

// pluginField reads one field of a plugin.
func (p *cfgParser) pluginField(pl *Plugin, path string, fe entry) error {
	what := path + "." + fe.key
	if fe.key == "args" {
		args, err := p.argList(fe.val, what)
		pl.Args = append(pl.Args, args...)
		return err
	}
	v, err := p.scalar(fe.val, what)
	if err != nil {
		return err
	}
	switch fe.key {
	case "key":
		if p.o.CheckPluginKey != nil {
			if err := p.o.CheckPluginKey(v); err != nil {
				return p.errAt(fe.val, what+": "+err.Error())
			}
		}
		pl.Key = v
	case "description":
		pl.Description = v
	case "scope":
		v = strings.ToLower(v)
		if v != PluginScopeRuntimes && v != PluginScopeSessions && v != PluginScopeFiles {
			return p.errAt(fe.val, fmt.Sprintf("%s: %q is not accepted (accepted: %s)", what, v, strings.Join(PluginScopes, ", ")))
		}
		pl.Scope = v
	case "command":
		pl.Command, err = p.command(fe.val, what, v)
	case "timeout":
		pl.Timeout, err = p.timeout(fe.val, what, v, MaxPluginTimeout)
	default: // confirm, dangerous, background, token
		var b bool
		switch strings.ToLower(v) {
		case "true":
			b = true
		case "false":
		default:
			return p.errAt(fe.val, fmt.Sprintf("%s: %q is not accepted (accepted: true or false)", what, v))
		}
		switch fe.key {
		case "confirm":
			pl.Confirm = b
		case "dangerous":
			pl.Dangerous = b
		case "background":
			pl.Background = b
		case "token":
			pl.Token = b
		}
	}
	return err
}
