package ui

import (
	"github.com/colabdash/colabdash/ui/pane/runtimes"
)

// move moves the runtimes cursor by delta rows; another runtime selected
// starts its sessions cursor at the top.
func (m *app) move(delta int) {
	if m.rt.Move(delta, m.runtimeRows()) {
		m.sess.Reset()
	}
}

// syncRows rebuilds the table's rows when the data, sort or filter
// changed (ui/pane/runtimes), and mirrors the selection into the Context.
func (m *app) syncRows() {
	if m.rt.Sync(m.cx.Snap) {
		m.sess.Reset()
	}
	m.cx.Selected = m.rt.Selected()
}

// runtimeRows is how many runtime rows the table shows: its height less
// the create-in-progress rows above them, which leave at least one.
func (m *app) runtimeRows() int {
	return runtimes.Visible(m.cx.Layout.TableRows, len(m.cr.creates))
}

// scroll keeps the cursor inside the visible window of the table's
// runtime rows.
func (m *app) scroll() { m.rt.Scroll(m.runtimeRows()) }
