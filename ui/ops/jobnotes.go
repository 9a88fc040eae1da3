package ops

import "time"

// JobNotesFile is the file, in the state directory, of what this machine
// remembers of the jobs it started (JobNote, one JSON array).
const JobNotesFile = "jobs.json"

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

// SaveJobNote adds or replaces n (by ID) in dir's JobNotesFile
// (WriteStateFile). An empty dir stores nothing.
func SaveJobNote(dir string, n JobNote) error { panic("ops: SaveJobNote not written yet") }

// JobNotes reads dir's JobNotesFile the bounded way (as LoadLastSpec);
// a missing file is no notes and no error. Notes whose ID or Runtime is
// not valid are dropped.
func JobNotes(dir string) ([]JobNote, error) { panic("ops: JobNotes not written yet") }

// ForgetJobNote removes job id's note from dir's JobNotesFile.
func ForgetJobNote(dir, id string) error { panic("ops: ForgetJobNote not written yet") }
