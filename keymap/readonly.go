package keymap

import (
	"fmt"
	"slices"

	"github.com/charmbracelet/bubbles/key"
)

// mutating lists the actions that change something on Colab.
// Renewing a proxy token (get_runtime) only reads, so it stays.
var mutating = []string{ActionNewRuntime, ActionQuickCreate, ActionDeleteRuntime, ActionOpenSession,
	ActionCloseSession, ActionRunCode, ActionCancel, ActionFilesUpload, ActionFilesDelete, ActionShell}

// SetReadOnly disables every action that changes something on Colab
// (create, delete, sessions, run code, the files pane's upload and
// delete, the shell): a disabled
// binding matches no key and is left out of the help. Navigation, refresh
// and the clipboard stay.
func (k *KeyMap) SetReadOnly(readOnly bool) {
	for _, a := range mutating {
		k.binding(a).SetEnabled(!readOnly)
	}
}

// DisabledMatch returns the dashboard action that SetReadOnly disabled
// and that msg (a tea.KeyMsg, or anything whose String is a key name like
// "n") would trigger if it were enabled, with its binding, so the
// dashboard can say "read-only mode: n (new runtime) is disabled" instead
// of ignoring the key. ok is false when msg matches no disabled action.
func (k *KeyMap) DisabledMatch(msg fmt.Stringer) (b key.Binding, ok bool) {
	return k.DisabledMatchIn(ScopeDashboard, msg)
}

// DisabledMatchIn is DisabledMatch for the actions of scope (ScopeFiles:
// "read-only mode: u (upload here) is disabled").
func (k *KeyMap) DisabledMatchIn(scope string, msg fmt.Stringer) (b key.Binding, ok bool) {
	for _, a := range mutating {
		if !slices.Contains(scopes[scope], a) {
			continue
		}
		b := *k.binding(a)
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
