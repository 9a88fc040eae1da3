package keymap

// Row is one action of one scope as the key table documents it: the
// scope (ScopeDashboard, ScopeRuntimes, …), the action's config name,
// its keys as Bubble Tea key strings in the order they are matched ("up",
// "k"), its help text, and whether it changes something on Colab (off in
// --readonly).
type Row struct {
	Scope, Action string
	Keys          []string
	Help          string
	Mutating      bool
}

// Rows returns one Row per action of every scope, in KeyMap's scope
// order (the dashboard first, then the runtimes table, the sessions pane,
// the files pane, the run-code console, the help, the event log, the
// profile picker and the no-credentials screen), each scope's actions in
// its struct's order; an action read in several scopes (up, quit) has a
// row in each. The keys are k's, so Rows of a rebound key map shows the
// rebinding.
func (k *KeyMap) Rows() []Row {
	var rows []Row
	for _, p := range k.places() {
		d := defaults()[p.action]
		rows = append(rows, Row{Scope: p.scope, Action: p.action, Keys: p.b.Keys(), Help: p.b.Help().Desc,
			Mutating: d.mutating})
	}
	return rows
}
