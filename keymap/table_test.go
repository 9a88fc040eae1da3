package keymap

import (
	"slices"
	"testing"
)

// The key table (docs/reference/keys.md) lists every action, each in the
// scopes where its keys are read, with the keys in effect.
func TestRowsCoverEveryActionWithItsKeys(t *testing.T) {
	k := Default()
	if err := k.Rebind(ActionRefresh, "f5"); err != nil {
		t.Fatal(err)
	}
	rows := k.Rows()
	for _, a := range Actions() {
		if !slices.ContainsFunc(rows, func(r Row) bool { return r.Action == a }) {
			t.Errorf("action %s has no row", a)
		}
	}
	if rows[0].Scope != ScopeDashboard {
		t.Errorf("first row's scope = %q, want the dashboard first", rows[0].Scope)
	}
	var refresh, del, demo *Row
	for i := range rows {
		r := &rows[i]
		switch {
		case r.Action == ActionRefresh && r.Scope == ScopeDashboard:
			refresh = r
		case r.Action == ActionDeleteRuntime:
			del = r
		case r.Action == ActionDemo:
			demo = r
		}
	}
	if refresh == nil || !slices.Equal(refresh.Keys, []string{"f5"}) {
		t.Errorf("refresh row = %+v, want the rebound key f5", refresh)
	}
	if del == nil || !del.Mutating || del.Help == "" {
		t.Errorf("delete_runtime row = %+v, want mutating with help", del)
	}
	if demo == nil || demo.Scope != ScopeSetup {
		t.Errorf("demo row = %+v, want the no-credentials screen's", demo)
	}
	// An action read in several scopes has a row in each, every scope has
	// rows, and they come scope by scope in KeyMap's order.
	var upIn, order []string
	for _, r := range rows {
		if r.Action == ActionUp {
			upIn = append(upIn, r.Scope)
		}
		if len(order) == 0 || order[len(order)-1] != r.Scope {
			order = append(order, r.Scope)
		}
	}
	if want := []string{ScopeRuntimes, ScopeSessions, ScopeFiles, ScopeLogView, ScopeHelp, ScopeEvents, ScopeProfile}; !slices.Equal(upIn, want) {
		t.Errorf("up is read in %q, want %q", upIn, want)
	}
	if !slices.Equal(order, scopeNames()) {
		t.Errorf("rows' scopes %q, want each once in %q", order, scopeNames())
	}
}
