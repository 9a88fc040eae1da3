package filepane

// What an upload takes: checked before the transfer (the upload dialog
// checks what is typed the same way) and again by the transfer itself.

import (
	"errors"
	"io/fs"
	"os"

	"github.com/colabdash/colabdash/api/jupyter"
)

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

// Entry returns the listed entry of the directory shown named name (as
// the server sent it), if any: what an upload of that name replaces.
func (p *Pane) Entry(name string) (jupyter.Model, bool) {
	if p.err != "" {
		return jupyter.Model{}, false
	}
	for _, e := range p.entries {
		if e.Name == name {
			return e, true
		}
	}
	return jupyter.Model{}, false
}

// Listing returns a copy of the entries of the directory shown (none
// while a listing error is shown), for a check run in a command.
func (p *Pane) Listing() []jupyter.Model {
	if p.err != "" {
		return nil
	}
	return append([]jupyter.Model(nil), p.entries...)
}
