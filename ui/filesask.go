package ui

// The files pane's questions about local paths: the download-to and
// upload dialogs check what is typed as the transfer will (a local stat,
// in a command), and a transfer that would replace a file, local or on
// the runtime, asks first (y only), as deleting does.

import (
	"errors"
	"path/filepath"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/filepane"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
	"github.com/colabdash/colabdash/ui/termtext"
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

// filesAnswer is the answer of a files pane question about t: yes is op
// on t with local, the local path the question named (typed: the one
// typed into it instead); no is the effect of a cancel (nil: nothing).
func filesAnswer(op common.FilesOp, t filepane.Target, local string, typed bool, no common.Effect) func(*common.Context, dialog.Reply) common.Effect {
	return func(_ *common.Context, r dialog.Reply) common.Effect {
		if !r.OK {
			return no
		}
		if typed {
			return common.FilesAnswer{Op: op, Target: t, Local: r.Input}
		}
		return common.FilesAnswer{Op: op, Target: t, Local: local}
	}
}

// downloadToDialog is D's question: where to download t. What is typed
// is checked as the download will resolve it (filepane.PlanDownload).
func downloadToDialog(t filepane.Target, now time.Time) *dialog.Dialog {
	d := dialog.New(dialog.Input, now, "Download "+t.Name,
		"Local file or directory to download "+jupyter.Where(t.Runtime, t.Path)+" to.")
	d.Hint = "empty: the current directory"
	d.Check = func(in string) dialog.Check {
		plan, err := filepane.PlanDownload(t, expandTilde(in))
		switch {
		case err != nil:
			return dialog.Check{Problem: problemText(err)}
		case plan.Exists:
			return dialog.Check{Note: "replaces the local file " + plan.Dst + " (asks first)", Warn: true}
		}
		return dialog.Check{Note: "downloads to " + plan.Dst}
	}
	d.OnAnswer = filesAnswer(common.FilesDownloadTo, t, "", true, nil)
	return d
}

// uploadDialog is u's question: which local file to upload into the
// directory shown. What is typed is checked as the upload will
// (filepane.CheckUpload), against the listing as it was when asked.
func uploadDialog(p *filepane.Pane, now time.Time) *dialog.Dialog {
	here := p.Here()
	d := dialog.New(dialog.Input, now, "Upload to "+jupyter.Where(here.Runtime, here.Path),
		"Local file to upload into this directory (it keeps its name; directories: colabdash cp -r).")
	d.Required = "type the path of a local file"
	d.OnAnswer = filesAnswer(common.FilesUpload, here, "", true, nil)
	listed := map[string]jupyter.Model{} // a copy: the check runs in a command
	for _, e := range p.Listing() {
		listed[e.Name] = e
	}
	d.Check = func(in string) dialog.Check {
		local := expandTilde(in)
		st, err := filepane.CheckUpload(here, local)
		if err != nil {
			return dialog.Check{Problem: problemText(err)}
		}
		name := filepath.Base(local)
		where := jupyter.Where(here.Runtime, here.Path+"/"+name)
		if e, ok := listed[name]; ok && e.IsDir() {
			return dialog.Check{Problem: "a directory " + where + " is in the way"}
		} else if ok {
			return dialog.Check{Note: "replaces " + where + " on the runtime (asks first)", Warn: true}
		}
		return dialog.Check{Note: "uploads " + state.FormatBytes(st.Size()) + " to " + where}
	}
	return d
}

// startUpload uploads local into t (the directory shown), asking first
// when the listing has a file of that name.
func (m *Model) startUpload(o *filesOverlay, t filepane.Target, local string, now time.Time) tea.Cmd {
	name := filepath.Base(local)
	where := jupyter.Where(t.Runtime, t.Path+"/"+name)
	var e jupyter.Model
	exists := false
	if o.p.Here() == t {
		// The listing on screen is of that directory: it says whether
		// the upload replaces a file (if the pane shows another one now,
		// the upload itself refuses to replace one).
		e, exists = o.p.Entry(name)
	}
	switch {
	case exists && e.IsDir():
		m.setStatus(now, "not uploading "+termtext.Line(local)+": a directory "+termtext.Line(where)+" is in the way", true)
		return nil
	case !exists:
		return o.p.Upload(t, local, false)
	}
	was := "it"
	if e.Size >= 0 {
		was += " (" + state.FormatBytes(e.Size)
		if !e.LastModified.IsZero() {
			was += ", modified " + e.LastModified.In(m.cx.Location).Format("2006-01-02 15:04")
		}
		was += ")"
	}
	d := dialog.New(dialog.Confirm, now, "Replace "+name+" on the runtime?",
		where+" exists: uploading "+local+" replaces "+was+".", "The runtime's copy cannot be recovered.")
	d.OnAnswer = filesAnswer(common.FilesReplaceRemote, t, local, false,
		common.Say{Text: "nothing uploaded: " + termtext.Line(where) + " is kept as it was"})
	m.push(d)
	return nil
}

// onFilesPlan acts on where a download would land: an existing local
// file is asked about (y only) before it is replaced; otherwise the
// download starts.
func (m *Model) onFilesPlan(pm filepane.PlanMsg, now time.Time) tea.Cmd {
	t := pm.Target
	o, open := find[*filesOverlay](m)
	switch {
	case !open || !o.p.Mine(pm):
		m.setStatus(now, "the files pane of "+t.Runtime+" was closed: nothing downloaded", true)
		return nil
	case pm.Err != nil:
		m.setStatus(now, "not downloading "+termtext.Line(t.Name)+": "+termtext.Line(problemText(pm.Err)), true)
		return nil
	case o.p.Busy():
		m.setStatus(now, "a transfer is already running", true)
		return nil
	case !pm.Plan.Exists:
		return o.p.Download(t, pm.Local, false)
	}
	plan := pm.Plan
	m.openFromAnswer(o, "the question whether to replace "+plan.Dst, func(m *Model, now time.Time) bool {
		if o, open := find[*filesOverlay](m); !open || !o.p.Mine(pm) {
			return false
		}
		d := dialog.New(dialog.Confirm, now, "Replace "+filepath.Base(plan.Dst)+"?",
			plan.Dst+" exists ("+state.FormatBytes(plan.Size)+", modified "+plan.Modified.In(m.cx.Location).Format("2006-01-02 15:04")+
				"): downloading "+jupyter.Where(t.Runtime, t.Path)+" replaces it.", "Your local copy cannot be recovered.")
		d.OnAnswer = filesAnswer(common.FilesReplaceLocal, t, pm.Local, false,
			common.Say{Text: "nothing downloaded: " + termtext.Line(plan.Dst) + " is kept as it was"})
		m.push(d)
		return true
	})
	return nil
}
