package keymap

import (
	"fmt"
	"slices"

	"github.com/charmbracelet/bubbles/key"
)

// Plugin scopes as the config names them (state/config's PluginScope*):
// the built-in scopes read at the same time as a plugin of each.
var pluginLive = map[string][]string{
	"runtimes": {ScopeDashboard, ScopeRuntimes},
	"sessions": {ScopeDashboard, ScopeSessions},
	"files":    {ScopeFiles},
}

// PluginKey is one plugin's binding: its config name, its scope
// ("runtimes", "sessions" or "files"), whether it is dangerous (off in
// --readonly) and the binding, whose help is the key and the plugin's
// description.
type PluginKey struct {
	Name, Scope string
	Dangerous   bool
	Binding     key.Binding
}

// AddPlugin binds keyName to the plugin name in scope ("runtimes",
// "sessions" or "files") with help text desc ("" shows the name). It
// returns an error, and binds nothing, for a key Bubble Tea cannot
// deliver (CheckKey), an unknown scope, or a key that a built-in action
// read in that scope already has or another plugin of the scope took: a
// plugin never shadows a built-in key. Call it after Rebind, so the
// built-in keys are the ones in effect.
func (k *KeyMap) AddPlugin(name, scope, keyName, desc string, dangerous bool) error {
	live, ok := pluginLive[scope]
	if !ok {
		return fmt.Errorf("unknown plugin scope %q (accepted: runtimes, sessions, files)", scope)
	}
	if err := CheckKey(keyName); err != nil {
		return err
	}
	s := normalizeKey(keyName)
	if s == AlwaysQuit {
		return fmt.Errorf("key %q always quits; choose another key", s)
	}
	for _, p := range k.places() {
		if slices.Contains(live, p.scope) && slices.Contains(p.b.Keys(), s) {
			return fmt.Errorf("conflict: key %q is %s's in the %s; choose another key", s, p.action, p.scope)
		}
	}
	for _, o := range k.plugins {
		if o.Scope == scope && slices.Contains(o.Binding.Keys(), s) {
			return fmt.Errorf("conflict: key %q is plugin %s's too; choose another key", s, o.Name)
		}
	}
	if desc == "" {
		desc = name
	}
	k.plugins = append(k.plugins, PluginKey{Name: name, Scope: scope, Dangerous: dangerous,
		Binding: key.NewBinding(key.WithKeys(s), key.WithHelp(helpKeys([]string{s}), desc))})
	return nil
}

// PluginMatch returns the plugin of scope whose key msg is (a
// tea.KeyMsg), and whether there is one; a dangerous plugin under
// --readonly matches with disabled true, so the dashboard can say it is
// off rather than ignore the key.
func (k *KeyMap) PluginMatch(scope string, msg fmt.Stringer) (p PluginKey, disabled, ok bool) {
	for _, p := range k.plugins {
		if p.Scope != scope {
			continue
		}
		b := p.Binding
		b.SetEnabled(true)
		if key.Matches(msg, b) {
			return p, !p.Binding.Enabled(), true
		}
	}
	return PluginKey{}, false, false
}

// PluginBindings returns the enabled bindings of scope's plugins, for
// the footer and the help.
func (k *KeyMap) PluginBindings(scope string) []key.Binding {
	var out []key.Binding
	for _, p := range k.plugins {
		if p.Scope == scope && p.Binding.Enabled() {
			out = append(out, p.Binding)
		}
	}
	return out
}

// setPluginsReadOnly disables the dangerous plugins (SetReadOnly).
func (k *KeyMap) setPluginsReadOnly(readOnly bool) {
	for i := range k.plugins {
		if k.plugins[i].Dangerous {
			k.plugins[i].Binding.SetEnabled(!readOnly)
		}
	}
}
