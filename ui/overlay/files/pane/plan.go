package pane

// Where a download lands and what an upload replaces, decided before the
// transfer so the dashboard can ask first (the y-only question), and
// checked again by the transfer itself.

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api/jupyter"
)

// DownloadPlan is where a download of a remote file lands.
type DownloadPlan struct {
	// Dst is the local file written: local itself, or local/NAME when
	// local is a directory.
	Dst string
	// Dir and Name are set when local is a directory: the file goes into
	// Dir (the user's path, followed as given) under Name, the remote
	// name, which is never followed (jupyter.Client.DownloadInto).
	Dir, Name string
	// Exists reports that Dst is already a file: downloading replaces
	// it. Size (bytes) and Modified describe that file.
	Exists   bool
	Size     int64
	Modified time.Time
}

// PlanDownload resolves local for a download of t by the rule of
// colabdash cp: a directory ("" is ".") receives the file under its own
// name, which must pass jupyter.LocalName and must not be a symbolic
// link there; anything else is the file name (a link there is the user's
// and followed, as cp follows it). It does I/O (stat): call it in a
// tea.Cmd. Errors (*jupyter.Error): ErrUnsafeName (the remote name cannot
// be a local one), ErrLocalNotFound (the directory it goes into is
// missing), ErrLocal (the target is a directory, a symbolic link inside
// the directory or not a regular file, or its directory is not one).
func PlanDownload(t Target, local string) (DownloadPlan, error) {
	if local == "" {
		local = "."
	}
	fail := func(kind error, msg string) (DownloadPlan, error) {
		return DownloadPlan{}, &jupyter.Error{Op: "download", Runtime: t.Runtime, Path: t.Path, Kind: kind, Message: msg}
	}
	dst, into := local, false
	if st, err := os.Stat(local); err == nil && st.IsDir() {
		// Only the name is taken from the server, and only when it is
		// one safe component without control characters: the rule of
		// colabdash cp.
		if err := jupyter.LocalName(t.Name); err != nil {
			return fail(jupyter.ErrUnsafeName, "its name "+err.Error()+" (download it to a file name you type)")
		}
		dst, into = filepath.Join(local, t.Name), true
	}
	dir := filepath.Dir(dst)
	switch st, err := os.Stat(dir); {
	case errors.Is(err, fs.ErrNotExist):
		return fail(jupyter.ErrLocalNotFound, dir)
	case err != nil:
		return fail(jupyter.ErrLocal, err.Error())
	case !st.IsDir():
		return fail(jupyter.ErrLocal, dir+" is not a directory")
	}
	plan := DownloadPlan{Dst: dst}
	stat := os.Stat
	if into {
		// Below the directory the user named, nothing is followed.
		plan.Dir, plan.Name, stat = local, t.Name, os.Lstat
	}
	st, err := stat(dst)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return plan, nil
	case err != nil:
		return fail(jupyter.ErrLocal, err.Error())
	case st.IsDir():
		return fail(jupyter.ErrLocal, dst+" is a directory")
	case st.Mode()&fs.ModeSymlink != 0:
		return fail(jupyter.ErrLocal, dst+" is a symbolic link, not followed: nothing is written through it")
	case !st.Mode().IsRegular():
		return fail(jupyter.ErrLocal, dst+" is not a regular file ("+st.Mode().Type().String()+")")
	}
	plan.Exists, plan.Size, plan.Modified = true, st.Size(), st.ModTime()
	return plan, nil
}

// PlanMsg answers Plan: where the download of Target would land.
// It answers the pane Target was captured from (Pane.Owns).
type PlanMsg struct {
	// Target is the remote file asked about.
	Target Target
	// Local is the local path asked about, as given to Plan: what
	// Download is to be called with (not Plan.Dst, which may hold the
	// remote name).
	Local string
	// Plan is where it lands (Err nil).
	Plan DownloadPlan
	// Err says why it cannot be downloaded there (see PlanDownload).
	Err error
}

// Plan resolves local for a download of t (PlanDownload) in a command,
// without downloading anything; the answer is a PlanMsg the dashboard
// acts on: it asks before replacing a file (Plan.Exists), then calls
// Download with the same local. It returns nil when t is not this pane's
// file.
func (p *Pane) Plan(t Target, local string) tea.Cmd {
	if !p.Owns(t) || t.Dir {
		return nil
	}
	return func() tea.Msg {
		plan, err := PlanDownload(t, local)
		return PlanMsg{Target: t, Local: local, Plan: plan, Err: err}
	}
}

// CheckUpload checks a local path before it is uploaded: it must exist
// and be a regular file (a directory goes with colabdash cp -r; a FIFO
// or device would never end). It does I/O (stat): call it in a tea.Cmd.
// Errors (*jupyter.Error, Path the directory uploaded into):
// ErrLocalNotFound, ErrLocal.
func CheckUpload(into Target, local string) (fs.FileInfo, error) {
	fail := func(kind error, msg string) (fs.FileInfo, error) {
		return nil, &jupyter.Error{Op: "upload", Runtime: into.Runtime, Path: into.Path, Kind: kind, Message: msg}
	}
	if local == "" {
		return fail(jupyter.ErrLocalNotFound, "no file given")
	}
	st, err := os.Stat(local)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fail(jupyter.ErrLocalNotFound, local)
	case err != nil:
		return fail(jupyter.ErrLocal, err.Error())
	case st.IsDir():
		return fail(jupyter.ErrLocal, local+" is a directory (use colabdash cp -r)")
	case !st.Mode().IsRegular():
		return fail(jupyter.ErrLocal, local+" is not a regular file ("+st.Mode().Type().String()+")")
	}
	return st, nil
}

// Listing returns a copy of the entries of the directory shown (none
// while a listing error is shown), for a check run in a command.
func (p *Pane) Listing() []jupyter.Model {
	if p.err != "" {
		return nil
	}
	return append([]jupyter.Model(nil), p.ls.entries...)
}
