package keymap

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/key"
)

// namedKeys are the Bubble Tea v1 key names (KeyMsg.String()) other than
// single characters; "alt+" may precede any of them. Built on first use,
// like every table here: a command that reads no key pays nothing at
// start-up.
var namedKeys = sync.OnceValue(func() map[string]bool {
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
})

// CheckKey reports whether s is a key Bubble Tea can deliver, written as
// KeyMsg.String() spells it: one character ("r", "G", "/", " " or "space"
// for the space bar),
// a name ("enter", "esc", "tab", "up", "pgdown", "f5", "ctrl+r",
// "shift+tab"), optionally prefixed with "alt+". It returns an error
// saying what is accepted, or nil.
func CheckKey(s string) error {
	k := strings.TrimPrefix(normalizeKey(s), "alt+")
	if utf8.RuneCountInString(k) == 1 || namedKeys()[k] {
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

// editorKeys are the keys the text editor (ui/widget/lineedit, the same
// in every text field) edits with, as KeyMsg.String() spells them; the
// editor reads them with or without alt ("alt+backspace" deletes a
// word). ctrl+j is the editor's new line, so only console_newline may
// have it.
var editorKeys = sync.OnceValue(func() map[string]string {
	return map[string]string{
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
})

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
	for _, p := range (&KeyMap{}).places() {
		text = text || (p.action == action && slices.Contains(textFieldScopes, p.scope))
	}
	if !text {
		return nil
	}
	k := normalizeKey(s)
	const ok = "(accepted there: enter, alt+enter, esc, tab, pgup, pgdown, f1–f20, insert, ctrl+ letters the editor does not use, alt+ a character)"
	if utf8.RuneCountInString(k) == 1 {
		return fmt.Errorf("key %q types a character in the %s's input, so it cannot be bound there %s", s, ScopeConsole, ok)
	}
	if what, found := editorKeys()[strings.TrimPrefix(k, "alt+")]; found && !(k == "ctrl+j" && action == ActionConsoleNewLine) {
		return fmt.Errorf("key %q %s in the %s's input (its editing keys are fixed), so it cannot be bound there %s", s, what, ScopeConsole, ok)
	}
	return nil
}

// Conflict is one key bound to more than one action read at the same
// time.
type Conflict struct {
	// Key is the key string ("r").
	Key string
	// Actions are the action names bound to it, sorted.
	Actions []string
	// Scope is where they are both read: the first scope of the keys read
	// together (ScopeDashboard for the dashboard with a pane's cursor
	// keys, ScopeFiles, ScopeConsole, ScopeHelp…).
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

// liveTogether lists the scopes whose keys are read at the same time: the
// focused pane's cursor keys with the dashboard's global keys (the pane
// gets a key first, so a shared key would hide a global one), and each
// layer alone (the layer on top gets every key). The first scope names
// the set in a Conflict.
var liveTogether = [][]string{
	{ScopeDashboard, ScopeRuntimes},
	{ScopeDashboard, ScopeSessions},
	{ScopeFiles}, {ScopeConsole}, {ScopeLogView}, {ScopeHelp}, {ScopeEvents}, {ScopeProfile}, {ScopeSetup},
}

// Conflicts returns every key bound to two or more actions read at the
// same time (see liveTogether: the dashboard with either pane's cursor
// keys, each layer alone), sorted by key and scope. Actions of scopes
// never read together may share a key (d deletes a runtime on the
// dashboard, downloads in the files pane, and is the no-credentials
// screen's demo key).
func (k *KeyMap) Conflicts() []Conflict {
	var out []Conflict
	for _, set := range liveTogether {
		by := map[string][]string{}
		for _, p := range k.places() {
			if !slices.Contains(set, p.scope) {
				continue
			}
			for _, s := range p.b.Keys() {
				if !slices.Contains(by[s], p.action) {
					by[s] = append(by[s], p.action)
				}
			}
		}
		for s, acts := range by {
			if len(acts) > 1 {
				sort.Strings(acts)
				out = append(out, Conflict{Key: s, Actions: acts, Scope: set[0]})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Key != out[j].Key {
			return out[i].Key < out[j].Key
		}
		return out[i].Scope < out[j].Scope
	})
	// The same pair can clash in several scopes (refresh and quit are read
	// in both the dashboard and the files pane): name it once, in the
	// dashboard if it clashes there.
	var kept []Conflict
	for _, c := range out {
		i := slices.IndexFunc(kept, func(o Conflict) bool { return o.Key == c.Key && slices.Equal(o.Actions, c.Actions) })
		switch {
		case i < 0:
			kept = append(kept, c)
		case c.Scope == ScopeDashboard:
			kept[i].Scope = c.Scope
		}
	}
	return kept
}

// Binding returns a copy of the binding of action (one of the Action*
// names; the same keys in every scope that reads it) and whether the
// action exists. It is for describing keys (the config, the docs): a
// component matches its own scope's bindings.
func (k *KeyMap) Binding(action string) (key.Binding, bool) {
	bs := k.bindings(action)
	if len(bs) == 0 {
		return key.Binding{}, false
	}
	return *bs[0], true
}
