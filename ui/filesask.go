package ui

// The files pane's questions about local paths: the upload dialog checks
// what is typed as the transfer will (a local stat, in a command).

import (
	"errors"
	"path/filepath"
	"time"

	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/filepane"
)

// problemText is a local check's failure without the operation and path
// the dialog already names: "no such local file or directory: ./x".
func problemText(err error) string {
	var je *jupyter.Error
	if errors.As(err, &je) {
		s := je.Kind.Error()
		if je.Message != "" {
			s += ": " + je.Message
		}
		return s
	}
	return err.Error()
}

// uploadDialog is u's question: which local file to upload into the
// directory shown. What is typed is checked as the upload will
// (filepane.CheckUpload), against the listing as it was when asked.
func uploadDialog(p *filepane.Pane, now time.Time) *dialog {
	here := p.Here()
	d := newDialog(dlgInput, now, "Upload to "+jupyter.Where(here.Runtime, here.Path),
		intent{kind: intentFilesUpload, file: here},
		"Local file to upload into this directory (it keeps its name; directories: colabdash cp -r).")
	d.required = "type the path of a local file"
	listed := map[string]jupyter.Model{} // a copy: the check runs in a command
	for _, e := range p.Listing() {
		listed[e.Name] = e
	}
	d.check = func(in string) dialogCheck {
		local := expandTilde(in)
		st, err := filepane.CheckUpload(here, local)
		if err != nil {
			return dialogCheck{problem: problemText(err)}
		}
		name := filepath.Base(local)
		where := jupyter.Where(here.Runtime, here.Path+"/"+name)
		if e, ok := listed[name]; ok && e.IsDir() {
			return dialogCheck{problem: "a directory " + where + " is in the way"}
		}
		return dialogCheck{note: "uploads " + state.FormatBytes(st.Size()) + " to " + where}
	}
	return d
}
