package keymap

import (
	"reflect"
	"sync"

	"github.com/charmbracelet/bubbles/key"
)

// Where each binding sits in a KeyMap, read from the type once: the
// walks over every binding (places, bindings) and the look-ups of an
// action's first binding that run inside View (Word, FirstKey).

// place is one binding of k: the scope it is read in, its action, and
// the binding itself.
type place struct {
	scope, action string
	b             *key.Binding
}

// closeActions is the action of each Pager (and Log) scope's Close key.
var closeActions = map[string]string{ScopeHelp: ActionHelp, ScopeEvents: ActionEvents}

// slot is where a binding sits in a KeyMap: its scope and action, and
// the indexes of its scope's field and of its own field there.
type slot struct {
	scope, action string
	field, sub    int
}

// slots lists every binding's slot, scope by scope in KeyMap's field
// order, each scope's in its struct's field order; the layout is the
// type's, so it is read once.
var slots = sync.OnceValue(func() []slot {
	var out []slot
	km := reflect.TypeFor[KeyMap]()
	for i := range km.NumField() {
		scope := km.Field(i).Tag.Get("scope")
		if scope == "" { // plugins: the user's, not an action's
			continue
		}
		st := km.Field(i).Type
		for j := range st.NumField() {
			action := st.Field(j).Tag.Get("action")
			if action == "" {
				action = closeActions[scope]
			}
			out = append(out, slot{scope, action, i, j})
		}
	}
	return out
})

// firstSlots is each action's first slot in slots' order (Word and
// FirstKey, which run inside View).
var firstSlots = sync.OnceValue(func() map[string]slot {
	out := map[string]slot{}
	for _, s := range slots() {
		if _, ok := out[s.action]; !ok {
			out[s.action] = s
		}
	}
	return out
})

// at returns k's binding in slot s.
func (k *KeyMap) at(s slot) *key.Binding {
	return reflect.ValueOf(k).Elem().Field(s.field).Field(s.sub).Addr().Interface().(*key.Binding)
}

// places lists every binding of k in slots' order.
func (k *KeyMap) places() []place {
	ss := slots()
	out := make([]place, len(ss))
	for i, s := range ss {
		out[i] = place{s.scope, s.action, k.at(s)}
	}
	return out
}

// scopeNames lists the scopes in KeyMap's field order.
func scopeNames() []string {
	t := reflect.TypeFor[KeyMap]()
	var out []string
	for i := range t.NumField() {
		if s := t.Field(i).Tag.Get("scope"); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// bindings returns every binding of action, one per scope reading it.
func (k *KeyMap) bindings(action string) []*key.Binding {
	var out []*key.Binding
	for _, p := range k.places() {
		if p.action == action {
			out = append(out, p.b)
		}
	}
	return out
}

// Word is how action's keys read in a sentence or footer of a component
// that does not read them ("e shows it", "v hides"): the help's spelling
// ("r", "f5/ctrl+r"); "" for an unknown action. It is words, not a
// binding: only a scope's owner matches its keys.
func (k *KeyMap) Word(action string) string {
	if s, ok := firstSlots()[action]; ok {
		return k.at(s).Help().Key
	}
	return ""
}

// FirstKey is action's first key as Bubble Tea spells it ("n", " ") when
// the action is enabled (not off in --readonly); "" otherwise.
func (k *KeyMap) FirstKey(action string) string {
	if s, ok := firstSlots()[action]; ok {
		if b := k.at(s); b.Enabled() && len(b.Keys()) > 0 {
			return b.Keys()[0]
		}
	}
	return ""
}
