package pane

// The messages of the pane's listings and transfers: each names the
// pane (and the request) it answers.

import (
	"context"
	"errors"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api/jupyter"
)

// ListedMsg answers a listing.
type ListedMsg struct {
	pane           int64
	gen            int
	dir            string
	filter         string // the filter the entries were kept by
	jc             *jupyter.Client
	entries        []jupyter.Model
	total, matched int
	err            error
}

// ProgressMsg reports a transfer's progress.
type ProgressMsg struct {
	pane        int64
	req         int
	done, total int64
	ch          <-chan tea.Msg
}

// Next waits for the transfer's next message (progress, then its
// DoneMsg). Update returns it for its own pane's progress; for the
// progress of a pane no longer open, the dashboard runs it, so the
// transfer's end still arrives (its outcome is logged).
func (m ProgressMsg) Next() tea.Cmd { return wait(m.ch) }

// DoneMsg ends a download, upload or delete. It names the pane, the
// runtime and the request it answers: Update takes it only when all three
// are the pane's (the transfer in flight), so a late answer never ends
// another transfer or lands on another runtime's pane. Runtime is the
// runtime id ("rt-abc"); Op is "download", "upload" or "delete"; Text is
// a one-line summary ("downloaded model.pt → ./model.pt (1.2 MB)") or,
// with Err, what failed.
type DoneMsg struct {
	pane    int64
	req     int
	jc      *jupyter.Client
	Runtime string
	Op      string
	Text    string
	Err     error
	// Elapsed is how long the transfer or delete took, from its start
	// to its end (wall clock).
	Elapsed time.Duration
	// Name is the file's (or directory's) own name, as the server sent
	// it: sanitize it to show it.
	Name string
}

// Cancelled reports whether the transfer or delete stopped because its
// context ended (the pane was closed, the program quit) rather than
// finishing or failing on its own.
func (d DoneMsg) Cancelled() bool {
	return errors.Is(d.Err, context.Canceled) || errors.Is(d.Err, jupyter.ErrInterrupted)
}

// KeptPart reports whether a cancelled download kept its part file (the
// next download of the same file resumes it).
func (d DoneMsg) KeptPart() bool {
	return d.Op == "download" && errors.Is(d.Err, jupyter.ErrInterrupted)
}
