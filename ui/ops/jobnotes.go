package ops

import (
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"sort"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/api/safefile"
)

// JobNotesFile is the file, in the state directory, of what this machine
// remembers of the jobs it started (JobNote, one JSON array).
const JobNotesFile = "jobs.json"

// MaxJobNotes is how many notes JobNotesFile keeps (the newest by
// Started): 100 notes stay well within safefile.MaxStateFile.
const MaxJobNotes = 100

// JobNote is what this machine remembers of a job it started: its id,
// its runtime (runtimes/ID), the script as the user named it, when it was
// started, and whether the runtime is to be deleted once the job ends
// (run --detach --delete-when-done; carried out by whichever colabdash
// process watches the job: the dashboard, wait, jobs --watch). It holds
// no secret.
type JobNote struct {
	ID             string    `json:"id"`
	Runtime        string    `json:"runtime"`
	File           string    `json:"file"`
	Started        time.Time `json:"started"`
	DeleteWhenDone bool      `json:"deleteWhenDone,omitempty"`
}

// valid reports whether n's ID passes jobs.ValidID and its Runtime is
// "runtimes/ID" with an ID api.ValidateID accepts.
func (n JobNote) valid() bool {
	if jobs.ValidID(n.ID) != nil || n.Runtime != api.RuntimeName(api.LastSegment(n.Runtime)) {
		return false
	}
	return api.ValidateID(api.LastSegment(n.Runtime)) == nil
}

// SaveJobNote adds or replaces n (by ID) in dir's JobNotesFile
// (WriteStateFile), keeping the newest MaxJobNotes. An empty dir stores nothing. A note whose ID or
// Runtime is not valid is refused (an error, nothing written); a notes
// file that cannot be read (not the user's, not JSON) is an error too,
// so that other notes are never lost by a rewrite.
func SaveJobNote(dir string, n JobNote) error {
	if dir == "" {
		return nil
	}
	if !n.valid() {
		return errors.New("job note: not a job id or runtime name")
	}
	notes, err := readJobNotes(dir)
	if err != nil {
		return err
	}
	out := make([]JobNote, 0, len(notes)+1)
	for _, o := range notes {
		if o.ID != n.ID {
			out = append(out, o)
		}
	}
	out = append(out, n)
	if len(out) > MaxJobNotes { // the oldest go: the file stays within its read bound
		sort.SliceStable(out, func(i, j int) bool { return out[i].Started.After(out[j].Started) })
		out = out[:MaxJobNotes]
	}
	return writeJobNotes(dir, out)
}

// JobNotes reads dir's JobNotesFile the bounded way (as LoadLastSpec);
// a missing file is no notes and no error. Notes whose ID or Runtime is
// not valid are dropped. Errors: a dir that is not the user's own
// (safefile.PrivateDir), a file that is not a regular file, too large
// (safefile.MaxStateFile) or not a JSON array of notes.
func JobNotes(dir string) ([]JobNote, error) {
	if dir == "" {
		return nil, nil
	}
	return readJobNotes(dir)
}

// ForgetJobNote removes job id's note from dir's JobNotesFile; a job
// without a note (or no file, or an empty dir) is no error.
func ForgetJobNote(dir, id string) error {
	if dir == "" {
		return nil
	}
	notes, err := readJobNotes(dir)
	if err != nil {
		return err
	}
	out := make([]JobNote, 0, len(notes))
	for _, n := range notes {
		if n.ID != id {
			out = append(out, n)
		}
	}
	if len(out) == len(notes) {
		return nil
	}
	return writeJobNotes(dir, out)
}

// readJobNotes is JobNotes for a dir that is not empty.
func readJobNotes(dir string) ([]JobNote, error) {
	if err := safefile.PrivateDir("state directory", dir); err != nil {
		return nil, err
	}
	b, err := safefile.Read(filepath.Join(dir, JobNotesFile), safefile.MaxStateFile, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var all []JobNote
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, errors.New(JobNotesFile + ": " + err.Error())
	}
	notes := make([]JobNote, 0, len(all))
	for _, n := range all {
		if n.valid() {
			notes = append(notes, n)
		}
	}
	return notes, nil
}

// writeJobNotes stores notes as dir's JobNotesFile (WriteStateFile).
func writeJobNotes(dir string, notes []JobNote) error {
	b, err := json.MarshalIndent(notes, "", "  ")
	if err != nil {
		return err
	}
	return WriteStateFile(dir, JobNotesFile, append(b, '\n'))
}
