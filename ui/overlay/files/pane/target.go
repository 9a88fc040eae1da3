package pane

// Target is one entry of a pane's runtime, captured when a question
// about it is asked (download to…, delete), so the answer acts on exactly
// what the question named, whatever the listing or the cursor did since.
type Target struct {
	pane int64
	// Runtime is the runtime id ("rt-abc").
	Runtime string
	// Path is the full remote path ("content/sub/data.csv"); for the
	// directory an upload goes into, that directory ("content/sub").
	Path string
	// Name is the entry's own name as the server sent it ("data.csv"); for
	// an upload's directory, "".
	Name string
	// Dir reports whether the entry is a directory.
	Dir bool
}

// Selection returns the entry under the cursor as a Target (ok false when
// nothing is selected, as with Selected).
func (p *Pane) Selection() (Target, bool) {
	e, ok := p.Selected()
	if !ok {
		return Target{}, false
	}
	return Target{pane: p.id, Runtime: p.runtime, Path: join(p.dir, e.Name), Name: e.Name, Dir: e.IsDir()}, true
}

// Here returns the directory shown as a Target: where an upload goes.
func (p *Pane) Here() Target {
	return Target{pane: p.id, Runtime: p.runtime, Path: p.dir, Dir: true}
}

// Owns reports whether t was captured from this pane (same pane, same
// runtime).
func (p *Pane) Owns(t Target) bool { return t.pane == p.id && t.Runtime == p.runtime }
