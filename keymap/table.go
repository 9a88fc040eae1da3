package keymap

import (
	"slices"
	"sort"
)

// Row is one action of one scope as the key table documents it: the
// scope (ScopeDashboard, ScopeFiles, ScopeConsole), the action's config
// name, its keys as Bubble Tea key strings in the order they are matched
// ("up", "k"), its help text, and whether it changes something on Colab
// (off in --readonly).
type Row struct {
	Scope, Action string
	Keys          []string
	Help          string
	Mutating      bool
}

// Rows returns one Row per action of every scope, the dashboard first,
// then the files pane and the run-code console, each scope's actions in
// the order its help lists them; an action read in two scopes (up, quit)
// has a row in each. The keys are k's, so Rows of a rebound key map shows
// the rebinding. Actions read in no scope (demo: the no-credentials
// screen) come last under the scope "".
func (k *KeyMap) Rows() []Row {
	names := []string{ScopeDashboard, ScopeFiles, ScopeConsole}
	var others []string
	for s := range scopes {
		if !slices.Contains(names, s) {
			others = append(others, s)
		}
	}
	sort.Strings(others)
	names = append(names, others...)
	var rows []Row
	seen := map[string]bool{}
	add := func(scope, action string) {
		b := k.binding(action)
		rows = append(rows, Row{Scope: scope, Action: action, Keys: b.Keys(), Help: b.Help().Desc,
			Mutating: slices.Contains(mutating, action)})
		seen[action] = true
	}
	for _, s := range names {
		for _, a := range scopes[s] {
			add(s, a)
		}
	}
	for _, a := range Actions() {
		if !seen[a] {
			add("", a)
		}
	}
	return rows
}
