package ui

// The files pane's questions as the dashboard's dialogs (files.Asker):
// the download-to and upload dialogs check what is typed as the transfer
// will (a local stat, in a command), and a transfer that would replace a
// file, local or on the runtime, asks first (y only), as deleting does.
// Each dialog's intent holds the entry asked about; answerFiles hands the
// answer back to the pane.

import (
	"path/filepath"
	"time"

	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/files"
	"github.com/colabdash/colabdash/ui/overlay/files/pane"
)

// filesAsker builds the files pane's dialogs.
type filesAsker struct{}

// DownloadTo is D's question: where to download t. What is typed is
// checked as the download will resolve it (pane.PlanDownload).
func (filesAsker) DownloadTo(t pane.Target, now time.Time) common.Overlay {
	d := newDialog(dlgInput, now, "Download "+t.Name, intent{kind: intentFilesDownloadTo, file: t},
		"Local file or directory to download "+jupyter.Where(t.Runtime, t.Path)+" to.")
	d.hint = "empty: the current directory"
	d.check = func(in string) dialogCheck {
		plan, err := pane.PlanDownload(t, files.ExpandTilde(in))
		switch {
		case err != nil:
			return dialogCheck{problem: files.ProblemText(err)}
		case plan.Exists:
			return dialogCheck{note: "replaces the local file " + plan.Dst + " (asks first)", warn: true}
		}
		return dialogCheck{note: "downloads to " + plan.Dst}
	}
	return d
}

// Upload is u's question: which local file to upload into the directory
// shown. What is typed is checked as the upload will (pane.CheckUpload),
// against the listing as it was when asked.
func (filesAsker) Upload(p *pane.Pane, now time.Time) common.Overlay {
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
		local := files.ExpandTilde(in)
		st, err := pane.CheckUpload(here, local)
		if err != nil {
			return dialogCheck{problem: files.ProblemText(err)}
		}
		name := filepath.Base(local)
		where := jupyter.Where(here.Runtime, here.Path+"/"+name)
		if e, ok := listed[name]; ok && e.IsDir() {
			return dialogCheck{problem: "a directory " + where + " is in the way"}
		} else if ok {
			return dialogCheck{note: "replaces " + where + " on the runtime (asks first)", warn: true}
		}
		return dialogCheck{note: "uploads " + state.FormatBytes(st.Size()) + " to " + where}
	}
	return d
}

// Delete is x's question: whether to delete t (y only).
func (filesAsker) Delete(t pane.Target, now time.Time) common.Overlay {
	what := "file"
	if t.Dir {
		what = "directory and everything listed in it"
	}
	return newDialog(dlgConfirm, now, "Delete "+t.Name+"?", intent{kind: intentFilesDelete, file: t},
		"The "+what+" "+jupyter.Where(t.Runtime, t.Path)+" is removed from the runtime.", "This cannot be undone.")
}

// ReplaceLocal asks whether the download of t to local may replace the
// local file plan.Dst (y only).
func (filesAsker) ReplaceLocal(t pane.Target, local string, plan pane.DownloadPlan, c *common.Context) common.Overlay {
	return newDialog(dlgConfirm, c.Now(), "Replace "+filepath.Base(plan.Dst)+"?", intent{kind: intentFilesReplaceLocal, file: t, local: local, dst: plan.Dst},
		plan.Dst+" exists ("+state.FormatBytes(plan.Size)+", modified "+plan.Modified.In(c.Location).Format("2006-01-02 15:04")+
			"): downloading "+jupyter.Where(t.Runtime, t.Path)+" replaces it.", "Your local copy cannot be recovered.")
}

// ReplaceRemote asks whether the upload of local into the directory t may
// replace e, the runtime's file of that name (y only).
func (filesAsker) ReplaceRemote(t pane.Target, local string, e jupyter.Model, c *common.Context) common.Overlay {
	name := filepath.Base(local)
	where := jupyter.Where(t.Runtime, t.Path+"/"+name)
	was := "it"
	if e.Size >= 0 {
		was += " (" + state.FormatBytes(e.Size)
		if !e.LastModified.IsZero() {
			was += ", modified " + e.LastModified.In(c.Location).Format("2006-01-02 15:04")
		}
		was += ")"
	}
	return newDialog(dlgConfirm, c.Now(), "Replace "+name+" on the runtime?", intent{kind: intentFilesReplaceRemote, file: t, local: local},
		where+" exists: uploading "+local+" replaces "+was+".", "The runtime's copy cannot be recovered.")
}
