package keymap

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/key"
)

// namedKeys are the Bubble Tea v1 key names (KeyMsg.String()) other than
// single characters; "alt+" may precede any of them.
var namedKeys = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields("tab enter esc backspace delete insert up down left right home end pgup pgdown " +
		"shift+tab ctrl+home ctrl+end shift+home shift+end ctrl+shift+home ctrl+shift+end ctrl+pgup ctrl+pgdown " +
		"ctrl+up ctrl+down ctrl+left ctrl+right shift+up shift+down shift+left shift+right " +
		"ctrl+shift+up ctrl+shift+down ctrl+shift+left ctrl+shift+right " +
		`ctrl+@ ctrl+\ ctrl+] ctrl+^ ctrl+_`) {
		m[k] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		if c != 'i' && c != 'm' { // ctrl+i is tab, ctrl+m is enter
			m["ctrl+"+string(c)] = true
		}
	}
	for i := 1; i <= 20; i++ {
		m[fmt.Sprintf("f%d", i)] = true
	}
	return m
}()

// CheckKey reports whether s is a key Bubble Tea can deliver, written as
// KeyMsg.String() spells it: one character ("r", "G", "/", " " or "space"
// for the space bar),
// a name ("enter", "esc", "tab", "up", "pgdown", "f5", "ctrl+r",
// "shift+tab"), optionally prefixed with "alt+". It returns an error
// saying what is accepted, or nil.
func CheckKey(s string) error {
	k := strings.TrimPrefix(normalizeKey(s), "alt+")
	if utf8.RuneCountInString(k) == 1 || namedKeys[k] {
		return nil
	}
	switch strings.ToLower(k) {
	case "return":
		return fmt.Errorf("key %q: write it as enter", s)
	case "escape":
		return fmt.Errorf("key %q: write it as esc", s)
	}
	return fmt.Errorf("key %q is not a key name (accepted: one character, enter, esc, tab, shift+tab, space (or \" \"), "+
		"up/down/left/right, home, end, pgup, pgdown, delete, insert, f1–f20, ctrl+a–z, with an optional alt+ prefix)", s)
}

// Conflict is one key bound to more than one action read in one scope.
type Conflict struct {
	// Key is the key string ("r").
	Key string
	// Actions are the action names bound to it, sorted.
	Actions []string
	// Scope is where they are both read (ScopeDashboard, ScopeFiles,
	// ScopeConsole).
	Scope string
}

// String renders `key "r" is bound to refresh and sort`, naming the scope
// when it is not the dashboard (`… in the files pane`).
func (c Conflict) String() string {
	s := fmt.Sprintf("key %q is bound to %s", c.Key, strings.Join(c.Actions, " and "))
	if c.Scope != ScopeDashboard {
		s += " in the " + c.Scope
	}
	return s
}

// Conflicts returns every key bound to two or more actions read in one
// scope (the dashboard, the files pane, the console), sorted by key and
// scope. Actions of different scopes may share a key (d deletes a
// runtime on the dashboard and downloads in the files pane), and so may
// the no-credentials screen's demo key.
func (k *KeyMap) Conflicts() []Conflict {
	var out []Conflict
	for scope, acts := range scopes {
		by := map[string][]string{}
		for _, a := range acts {
			for _, s := range k.binding(a).Keys() {
				by[s] = append(by[s], a)
			}
		}
		for s, acts := range by {
			if len(acts) > 1 {
				sort.Strings(acts)
				out = append(out, Conflict{Key: s, Actions: acts, Scope: scope})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Key != out[j].Key {
			return out[i].Key < out[j].Key
		}
		return out[i].Scope < out[j].Scope
	})
	// The same pair can clash in two scopes (refresh and quit are read in
	// both the dashboard and the files pane): name it once.
	var kept []Conflict
	for _, c := range out {
		if n := len(kept); n > 0 && c.Key == kept[n-1].Key && slices.Equal(c.Actions, kept[n-1].Actions) {
			continue
		}
		kept = append(kept, c)
	}
	return kept
}

// Binding returns the binding of action (one of the Action* names) and
// whether the action exists.
func (k *KeyMap) Binding(action string) (key.Binding, bool) {
	b := k.binding(action)
	if b == nil {
		return key.Binding{}, false
	}
	return *b, true
}
