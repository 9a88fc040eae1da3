package files

// The pane's questions as dialogs (the default Asker): the download-to and
// upload dialogs check what is typed as the transfer will (a local stat,
// in a command), and a transfer that would replace a file, local or on the
// runtime, asks first (y only), as deleting does. Each dialog's answer
// captures the entry asked about and hands it back to the pane it was
// asked in (Overlay.Answer).

import (
	"path/filepath"
	"time"

	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
	"github.com/colabdash/colabdash/ui/overlay/files/pane"
	"github.com/colabdash/colabdash/ui/termtext"
)

// dialogs is the default Asker: the dashboard's dialogs, answered to o.
type dialogs struct{ o *Overlay }

// answer is a question's answer: yes is o.Answer of q about t (local: the
// local path a Replace question names; what is typed goes as in); no is
// the effect of a cancel (what was cancelled, in the status line).
func (a dialogs) answer(q Question, t pane.Target, local string, no common.Effect) func(*common.Context, dialog.Reply) common.Effect {
	return func(c *common.Context, r dialog.Reply) common.Effect {
		if !r.OK {
			return no
		}
		return a.o.Answer(q, t, local, r.Input, c)
	}
}

// DownloadTo is D's question: where to download t. What is typed is
// checked as the download will resolve it (pane.PlanDownload).
func (a dialogs) DownloadTo(t pane.Target, now time.Time) common.Overlay {
	d := dialog.New(dialog.Input, now, "Download "+t.Name,
		"Local file or directory to download "+jupyter.Where(t.Runtime, t.Path)+" to.")
	d.Hint = "empty: the current directory"
	d.Check = func(in string) dialog.Check {
		plan, err := pane.PlanDownload(t, ExpandTilde(in))
		switch {
		case err != nil:
			return dialog.Check{Problem: ProblemText(err)}
		case plan.Exists:
			return dialog.Check{Note: "replaces the local file " + plan.Dst + " (asks first)", Warn: true}
		}
		return dialog.Check{Note: "downloads to " + plan.Dst}
	}
	d.OnAnswer = a.answer(AskDownloadTo, t, "", common.Say{Pane: true, Text: "download of " + termtext.Line(t.Name) + " cancelled: nothing downloaded"})
	return d
}

// Upload is u's question: which local file to upload into the directory
// shown. What is typed is checked as the upload will (pane.CheckUpload),
// against the listing as it was when asked.
func (a dialogs) Upload(p *pane.Pane, now time.Time) common.Overlay {
	here := p.Here()
	d := dialog.New(dialog.Input, now, "Upload to "+jupyter.Where(here.Runtime, here.Path),
		"Local file to upload into this directory (it keeps its name; directories: colabdash cp -r).")
	d.Required = "type the path of a local file"
	listed := map[string]jupyter.Model{} // a copy: the check runs in a command
	for _, e := range p.Listing() {
		listed[e.Name] = e
	}
	d.Check = func(in string) dialog.Check {
		local := ExpandTilde(in)
		st, err := pane.CheckUpload(here, local)
		if err != nil {
			return dialog.Check{Problem: ProblemText(err)}
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
	d.OnAnswer = a.answer(AskUpload, here, "", common.Say{Pane: true, Text: "upload cancelled: nothing uploaded"})
	return d
}

// Delete is x's question: whether to delete t (y only). Its words hold
// whether the server deletes for good or moves what it deletes to its
// trash (a stock jupyter_server: the delete's status line says so too).
func (a dialogs) Delete(t pane.Target, now time.Time) common.Overlay {
	what, it := "The file "+jupyter.Where(t.Runtime, t.Path)+" is", "it"
	if t.Dir {
		what, it = "The directory "+jupyter.Where(t.Runtime, t.Path)+" and everything listed in it are", "them"
	}
	d := dialog.New(dialog.Confirm, now, "Delete "+t.Name+"?",
		what+" deleted from the runtime; colabdash cannot restore "+it+".",
		"Its Jupyter server may keep "+it+" in its trash until purged ("+pane.PurgeHint(t.Runtime)+" frees it).")
	d.OnAnswer = a.answer(AskDelete, t, "", common.Say{Pane: true, Text: "delete of " + termtext.Line(t.Name) + " cancelled: nothing deleted"})
	return d
}

// ReplaceLocal asks whether the download of t to local may replace the
// local file plan.Dst (y only).
func (a dialogs) ReplaceLocal(t pane.Target, local string, plan pane.DownloadPlan, c *common.Context) common.Overlay {
	d := dialog.New(dialog.Confirm, c.Now(), "Replace "+filepath.Base(plan.Dst)+"?",
		plan.Dst+" exists ("+state.FormatBytes(plan.Size)+", modified "+plan.Modified.In(c.Location).Format("2006-01-02 15:04")+
			"): downloading "+jupyter.Where(t.Runtime, t.Path)+" replaces it.", "Your local copy cannot be recovered.")
	d.OnAnswer = a.answer(AskReplaceLocal, t, local,
		common.Say{Text: "nothing downloaded: " + termtext.Line(plan.Dst) + " is kept as it was"})
	return d
}

// ReplaceRemote asks whether the upload of local into the directory t may
// replace e, the runtime's file of that name (y only).
func (a dialogs) ReplaceRemote(t pane.Target, local string, e jupyter.Model, c *common.Context) common.Overlay {
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
	d := dialog.New(dialog.Confirm, c.Now(), "Replace "+name+" on the runtime?",
		where+" exists: uploading "+local+" replaces "+was+".", "The runtime's copy cannot be recovered.")
	d.OnAnswer = a.answer(AskReplaceRemote, t, local,
		common.Say{Text: "nothing uploaded: " + termtext.Line(where) + " is kept as it was"})
	return d
}
