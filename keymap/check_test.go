package keymap

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestCheckKey(t *testing.T) {
	for _, ok := range []string{"r", "G", "/", " ", "space", "alt+space", "?", "é", "enter", "esc", "f5", "f20", "ctrl+r", "alt+x", "alt+enter", "shift+tab", "pgdown"} {
		if err := CheckKey(ok); err != nil {
			t.Errorf("CheckKey(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"Return", "ctrl+i", "f21", "hyper+q", "rr", "ctrl+", ""} {
		err := CheckKey(bad)
		if err == nil {
			t.Errorf("CheckKey(%q) accepted", bad)
			continue
		}
		if !strings.Contains(err.Error(), bad) {
			t.Errorf("CheckKey(%q) error %q does not name the key", bad, err)
		}
	}
}

// Field trial: ctrl+i was refused as "not a key name" by a message that
// listed ctrl+a–z as accepted. A terminal sends tab for ctrl+i (and enter
// for ctrl+m, esc for ctrl+[): the error says so.
func TestCheckKeySameAsAnother(t *testing.T) {
	for k, want := range map[string]string{"ctrl+i": "tab", "ctrl+m": "enter", "alt+ctrl+i": "tab", "ctrl+[": "esc"} {
		err := CheckKey(k)
		if err == nil || err.Error() != fmt.Sprintf("key %q is the same key as %s in a terminal; write %s", k, want, want) {
			t.Errorf("CheckKey(%q) = %v", k, err)
		}
	}
	err := CheckKey("hyper+q")
	if err == nil || !strings.Contains(err.Error(), "ctrl+a–z but ctrl+i (tab) and ctrl+m (enter)") {
		t.Errorf("the accepted list is not exact: %v", err)
	}
}

func TestConflicts(t *testing.T) {
	k := Default()
	if c := k.Conflicts(); len(c) != 0 {
		t.Fatalf("default key map has conflicts: %v", c)
	}
	// The demo key lives on another screen: sharing it is fine (by
	// default "d" is both demo and delete_runtime).
	if d, _ := k.Binding(ActionDemo); strings.Join(d.Keys(), ",") != "d" {
		t.Fatalf("demo keys %v", d.Keys())
	}
	if err := k.Rebind(ActionRefresh, "s", "f5"); err != nil {
		t.Fatal(err)
	}
	if err := k.Rebind(ActionDeleteRuntime, "d"); err != nil {
		t.Fatal(err)
	}
	if err := k.Rebind(ActionSort, "s"); err != nil {
		t.Fatal(err)
	}
	c := k.Conflicts()
	if len(c) != 1 || c[0].String() != `key "s" is bound to refresh and sort` {
		t.Fatalf("conflicts %v", c)
	}
	b, ok := k.Binding(ActionRefresh)
	if !ok || strings.Join(b.Keys(), ",") != "s,f5" || b.Help().Key != "s/f5" {
		t.Fatalf("binding %v %v", b.Keys(), b.Help())
	}
	if _, ok := k.Binding("explode"); ok {
		t.Fatal("unknown action found")
	}
}

// Every ctrl+letter Bubble Tea delivers is accepted, the last letter too;
// several conflicts are listed in key order, so the config error names
// them the same way every time.
func TestCtrlLettersAndConflictOrder(t *testing.T) {
	for _, ok := range []string{"ctrl+a", "ctrl+z", "ctrl+h"} {
		if err := CheckKey(ok); err != nil {
			t.Errorf("CheckKey(%q) = %v", ok, err)
		}
	}
	k := Default()
	if err := k.Rebind(ActionRefresh, "z"); err != nil {
		t.Fatal(err)
	}
	if err := k.Rebind(ActionSort, "z"); err != nil {
		t.Fatal(err)
	}
	if err := k.Rebind(ActionFilter, "a"); err != nil {
		t.Fatal(err)
	}
	if err := k.Rebind(ActionHelp, "a"); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, c := range k.Conflicts() {
		keys = append(keys, c.Key)
	}
	if strings.Join(keys, ",") != "a,z" {
		t.Fatalf("conflicts in order %v, want a,z", keys)
	}
}

// The files pane and the console have their own actions: they may share
// keys with the dashboard's (d deletes a runtime there, downloads in the
// files pane), but not with an action read on the same layer, and such a
// conflict names the layer.
func TestConflictsPerScope(t *testing.T) {
	k := Default()
	if err := k.Rebind(ActionFilesDownload, "r"); err != nil {
		t.Fatal(err)
	}
	c := k.Conflicts()
	if len(c) != 1 || c[0].String() != `key "r" is bound to files_download and refresh in the files pane` {
		t.Fatalf("conflicts %v", c)
	}
	k = Default()
	if err := k.Rebind(ActionConsoleBack, "pgup"); err != nil {
		t.Fatal(err)
	}
	if c := k.Conflicts(); len(c) != 1 || c[0].Scope != ScopeConsole {
		t.Fatalf("conflicts %v", c)
	}
	// refresh and quit are read on the dashboard and in the files pane: a
	// clash between them is named once.
	k = Default()
	if err := k.Rebind(ActionRefresh, "q"); err != nil {
		t.Fatal(err)
	}
	if c := k.Conflicts(); len(c) != 1 || c[0].String() != `key "q" is bound to quit and refresh` {
		t.Fatalf("conflicts %v", c)
	}
}

// An action read while the console's input has focus cannot take a key
// the input types or edits with: bound to "a", typing print("banana")
// would run the code at every a. Other scopes may use such keys (q quits
// the dashboard, backspace is the files pane's parent directory).
func TestCheckBindingTextField(t *testing.T) {
	for _, c := range []struct{ action, key, want string }{
		{ActionConsoleRun, "a", "types a character"},
		{ActionConsoleBack, "q", "types a character"},
		{ActionConsoleBack, "space", "types a character"},
		{ActionConsoleBack, " ", "types a character"},
		{ActionConsoleRun, "é", "types a character"},
		{ActionConsoleBack, "backspace", "deletes a character"},
		{ActionConsoleBack, "alt+backspace", "deletes a character"},
		{ActionConsoleStop, "ctrl+u", "deletes to the line start"},
		{ActionConsoleScrollUp, "up", "moves between lines"},
		{ActionConsoleScrollDown, "down", "moves between lines"},
		{ActionConsoleRun, "home", "moves the cursor"},
		{ActionConsoleRun, "ctrl+e", "moves the cursor"},
		{ActionConsoleRun, "left", "moves the cursor"},
		{ActionConsoleRun, "ctrl+j", "starts a new line"},
	} {
		err := CheckBinding(c.action, c.key)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("CheckBinding(%s, %q) = %v, want an error saying it %s", c.action, c.key, err, c.want)
		}
	}
	for _, c := range []struct{ action, key string }{
		{ActionConsoleRun, "enter"}, {ActionConsoleRun, "f5"}, {ActionConsoleRun, "ctrl+r"},
		{ActionConsoleNewLine, "ctrl+j"}, {ActionConsoleNewLine, "alt+enter"}, {ActionConsoleBack, "esc"},
		{ActionConsoleBack, "alt+q"}, {ActionConsoleScrollUp, "ctrl+up"}, {ActionConsoleScrollUp, "pgup"},
		{ActionQuit, "q"}, {ActionFilesParent, "backspace"}, {ActionUp, "up"},
	} {
		if err := CheckBinding(c.action, c.key); err != nil {
			t.Errorf("CheckBinding(%s, %q) = %v", c.action, c.key, err)
		}
	}
	if err := CheckBinding(ActionConsoleRun, "hyper+x"); err == nil {
		t.Error("CheckBinding does not apply CheckKey")
	}
	// Every default passes its own check.
	for a, d := range defaults() {
		for _, k := range d.keys {
			if err := CheckBinding(a, k); err != nil {
				t.Errorf("default %s: %q: %v", a, k, err)
			}
		}
	}
}

// Keys read at the same time may not clash: a runtimes table key with a
// global key (the table would take it first and hide the global one), a
// sessions pane key likewise; a layer's keys among themselves. A scope
// never read with another may reuse its keys.
func TestConflictsOfScopesReadTogether(t *testing.T) {
	for _, c := range []struct {
		action, key, want string
	}{
		{ActionTop, "e", `key "e" is bound to run_code and top`},
		{ActionPageDown, "P", `key "P" is bound to page_down and profile`},
		{ActionDemo, "esc", `key "esc" is bound to back and demo in the no-credentials screen`},
		{ActionFilesOpen, "P", `key "P" is bound to files_open and profile in the files pane`},
	} {
		k := Default()
		if err := k.Rebind(c.action, c.key); err != nil {
			t.Fatal(err)
		}
		if got := k.Conflicts(); len(got) != 1 || got[0].String() != c.want {
			t.Errorf("%s: %s gives %v, want %s", c.action, c.key, got, c.want)
		}
	}
	// Every scope is read with some: none escapes the check.
	for _, s := range scopeNames() {
		if !slices.ContainsFunc(liveTogether, func(set []string) bool { return slices.Contains(set, s) }) {
			t.Errorf("scope %q is in no set of scopes read together", s)
		}
	}
}
