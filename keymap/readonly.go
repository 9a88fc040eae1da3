package keymap

import (
	"fmt"
	"reflect"

	"github.com/charmbracelet/bubbles/key"
)

// SetReadOnly disables every action that changes something on Colab
// (create, delete, sessions, run code, the files pane's upload and
// delete, the shell) and every dangerous plugin, in every scope: a disabled binding matches no key
// and is left out of the help. Navigation, refresh, renewing a proxy
// token (it only reads) and the clipboard stay.
func (k *KeyMap) SetReadOnly(readOnly bool) {
	for _, p := range k.places() {
		if defaults()[p.action].mutating {
			p.b.SetEnabled(!readOnly)
		}
	}
	k.setPluginsReadOnly(readOnly)
}

// DisabledMatch returns the dashboard action that SetReadOnly disabled
// and that msg (a tea.KeyMsg, or anything whose String is a key name like
// "n") would trigger if it were enabled, with its binding, so the
// dashboard can say "read-only mode: n (new runtime) is disabled" instead
// of ignoring the key. ok is false when msg matches no disabled action.
func (d *Dashboard) DisabledMatch(msg fmt.Stringer) (b key.Binding, ok bool) {
	return disabledMatch(reflect.ValueOf(d).Elem(), msg)
}

// DisabledMatch is Dashboard.DisabledMatch for the files pane's actions
// ("read-only mode: u (upload here) is disabled").
func (f *Files) DisabledMatch(msg fmt.Stringer) (b key.Binding, ok bool) {
	return disabledMatch(reflect.ValueOf(f).Elem(), msg)
}

// disabledMatch is DisabledMatch over the bindings of scope, a scope
// struct.
func disabledMatch(scope reflect.Value, msg fmt.Stringer) (key.Binding, bool) {
	for i := range scope.NumField() {
		if !defaults()[scope.Type().Field(i).Tag.Get("action")].mutating {
			continue
		}
		b := scope.Field(i).Interface().(key.Binding)
		if b.Enabled() {
			continue
		}
		b.SetEnabled(true)
		if key.Matches(msg, b) {
			return b, true
		}
	}
	return key.Binding{}, false
}
