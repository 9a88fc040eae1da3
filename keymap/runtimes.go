package keymap

import (
	"reflect"

	"github.com/charmbracelet/bubbles/key"
)

// Runtimes is the runtimes table's keys (ScopeRuntimes): its cursor
// (as List), space marks or unmarks the selected runtime for a bulk
// delete or close, ctrl+\ clears every mark, shift+letter sorts by a
// column (A NAME, C SPEC, V VERSION, E SESS, T TOKEN's expiry, and the
// monitor's M RAM, U GPU, I ACTIVITY; the same key again reverses) and O
// reverses the order.
type Runtimes struct {
	Up           key.Binding `action:"up"`
	Down         key.Binding `action:"down"`
	PageUp       key.Binding `action:"page_up"`
	PageDown     key.Binding `action:"page_down"`
	Top          key.Binding `action:"top"`
	Bottom       key.Binding `action:"bottom"`
	Mark         key.Binding `action:"mark"`
	ClearMarks   key.Binding `action:"clear_marks"`
	SortName     key.Binding `action:"sort_name"`
	SortSpec     key.Binding `action:"sort_spec"`
	SortVersion  key.Binding `action:"sort_version"`
	SortSessions key.Binding `action:"sort_sessions"`
	SortExpiry   key.Binding `action:"sort_expiry"`
	SortRAM      key.Binding `action:"sort_ram"`
	SortGPU      key.Binding `action:"sort_gpu"`
	SortActivity key.Binding `action:"sort_activity"`
	SortReverse  key.Binding `action:"sort_reverse"`
}

// ForAction is the binding of action in the runtimes table (a column's
// sort action, ui/render SortBy.Action); ok is false when the table does
// not read action.
func (r *Runtimes) ForAction(action string) (b key.Binding, ok bool) {
	v := reflect.ValueOf(r).Elem()
	for i := range v.NumField() {
		if v.Type().Field(i).Tag.Get("action") == action {
			return v.Field(i).Interface().(key.Binding), true
		}
	}
	return key.Binding{}, false
}
