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
	// A terminal sends the same byte for these as for another key, so
	// Bubble Tea reports that key: name it instead of calling the
	// combination unknown.
	if same, ok := sameKey[strings.ToLower(k)]; ok {
		return fmt.Errorf("key %q is the same key as %s in a terminal; write %s", s, same, same)
	}
	return fmt.Errorf("key %q is not a key name (accepted: one character, enter, esc, tab, shift+tab, space (or \" \"), "+
		"backspace, up/down/left/right, home, end, pgup, pgdown, delete, insert, f1–f20, "+
		"ctrl+a–z but ctrl+i (tab) and ctrl+m (enter), ctrl+ and shift+ with arrows, home, end, pgup, pgdown, "+
		"with an optional alt+ prefix)", s)
}

// sameKey maps control combinations a terminal cannot tell from another
// key to that key's name: ctrl+i sends tab's byte, ctrl+m enter's, ctrl+[
// esc's.
var sameKey = map[string]string{"ctrl+i": "tab", "ctrl+m": "enter", "ctrl+[": "esc"}

// textFieldScopes are the scopes whose keys are read while a text field
// has focus: every key they do not bind is typed into it. Only the
// run-code console binds keys there (the filter line and the dialogs'
// inputs read fixed keys, not the key map).
var textFieldScopes = []string{ScopeConsole}

// editorKeys are the keys the text editor (ui/editor.go, the same in
// every text field) edits with, as KeyMsg.String() spells them; the
// editor reads them with or without alt ("alt+backspace" deletes a
// word). ctrl+j is the editor's new line, so only console_newline may
// have it.
var editorKeys = map[string]string{
	"backspace": "deletes a character", "ctrl+h": "deletes a character",
	"delete": "deletes a character", "ctrl+d": "deletes a character",
	"ctrl+u": "deletes to the line start", "ctrl+k": "deletes to the line end",
	"ctrl+w": "deletes a word",
	"left":   "moves the cursor", "right": "moves the cursor",
	"home": "moves the cursor", "ctrl+a": "moves the cursor",
	"end": "moves the cursor", "ctrl+e": "moves the cursor",
	"up": "moves between lines and through the history", "down": "moves between lines and through the history",
	"ctrl+j": "starts a new line",
}

// CheckBinding is CheckKey for key bound to action (an Action* name): an
// action read while a text field has focus (the console_* actions) may
// not take a key the field types (one character without alt, the space
// bar) or one its editor uses (backspace, delete, ←/→, ↑/↓, home/end,
// ctrl+a/e/u/k/w/h/d, ctrl+j; see editorKeys), since typing or editing
// would then trigger it. The error is one line saying why and what is
// accepted.
func CheckBinding(action, s string) error {
	if err := CheckKey(s); err != nil {
		return err
	}
	text := false
	for _, sc := range textFieldScopes {
		text = text || slices.Contains(scopes[sc], action)
	}
	if !text {
		return nil
	}
	k := normalizeKey(s)
	const ok = "(accepted there: enter, alt+enter, esc, tab, pgup, pgdown, f1–f20, insert, ctrl+ letters the editor does not use, alt+ a character)"
	if utf8.RuneCountInString(k) == 1 {
		return fmt.Errorf("key %q types a character in the %s's input, so it cannot be bound there %s", s, ScopeConsole, ok)
	}
	if what, found := editorKeys[strings.TrimPrefix(k, "alt+")]; found && !(k == "ctrl+j" && action == ActionConsoleNewLine) {
		return fmt.Errorf("key %q %s in the %s's input (its editing keys are fixed), so it cannot be bound there %s", s, what, ScopeConsole, ok)
	}
	return nil
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
