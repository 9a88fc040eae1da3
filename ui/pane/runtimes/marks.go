package runtimes

import "github.com/colabdash/colabdash/state"

// Marks: space marks rows for a bulk delete or close (k9s's habit). A
// mark is a runtime name, so it follows its runtime through re-sorts and
// refreshes; it drops when the runtime disappears (gone or no longer
// listed). A bulk key acts only on the marked rows the table shows: marks
// hidden by the filter are kept but left alone.

// ToggleMark marks the selected runtime, or unmarks it when it is marked,
// and moves the cursor down a row (visible rows shown). It returns the
// runtime's id and whether it is now marked; ok is false when no live
// runtime is selected (none, or a gone one, which cannot be marked).
func (p *Pane) ToggleMark(visible int) (id string, marked, ok bool) {
	if len(p.rows) == 0 {
		return "", false, false
	}
	r := p.rows[p.cursor]
	if r.Gone() {
		return r.ID(), false, false
	}
	if p.marks[r.Name] {
		delete(p.marks, r.Name)
	} else {
		p.marks[r.Name] = true
	}
	p.Move(1, visible)
	return r.ID(), p.marks[r.Name], true
}

// ClearMarks unmarks every runtime and returns how many were marked.
func (p *Pane) ClearMarks() int {
	n := len(p.marks)
	clear(p.marks)
	return n
}

// Unmark drops the marks of names.
func (p *Pane) Unmark(names ...string) {
	for _, n := range names {
		delete(p.marks, n)
	}
}

// IsMarked reports whether runtime name is marked.
func (p *Pane) IsMarked(name string) bool { return p.marks[name] }

// Marked returns the marked runtimes the table shows (its filter
// applied), in table order: what a bulk key acts on.
func (p *Pane) Marked() []*state.Runtime {
	var out []*state.Runtime
	for _, r := range p.rows {
		if p.marks[r.Name] {
			out = append(out, r)
		}
	}
	return out
}

// HiddenMarks is how many marked runtimes the filter hides.
func (p *Pane) HiddenMarks() int {
	shown := 0
	for _, r := range p.rows {
		if p.marks[r.Name] {
			shown++
		}
	}
	return len(p.marks) - shown
}

// dropVanishedMarks forgets the marks of runtimes snap no longer lists
// (gone, deleted or unknown).
func (p *Pane) dropVanishedMarks(snap *state.Snapshot) {
	for name := range p.marks {
		if r := snap.Runtime(name); r == nil || r.Gone() {
			delete(p.marks, name)
		}
	}
}
