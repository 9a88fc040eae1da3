package files

// What the pane's questions' answers do, and where a download lands: an
// answer acts on the target captured when its question opened, never on
// what the cursor or the listing point at now, and only in the pane it
// was asked in.

import (
	"errors"
	"os"
	"path/filepath"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/files/pane"
	"github.com/colabdash/colabdash/ui/termtext"
)

// Question is which of the pane's questions was answered.
type Question int

// The pane's questions (Asker builds them).
const (
	// AskDownloadTo is D's: where to download the file (typed).
	AskDownloadTo Question = iota + 1
	// AskUpload is u's: which local file to upload here (typed).
	AskUpload
	// AskDelete is x's: whether to delete the entry.
	AskDelete
	// AskReplaceLocal asks whether a download may replace a local file.
	AskReplaceLocal
	// AskReplaceRemote asks whether an upload may replace the runtime's
	// file of that name.
	AskReplaceRemote
)

func run(cmd tea.Cmd) common.Effect { return common.Run{Cmd: cmd} }

// PaneClosed is what an answer says when the files pane of runtime (an
// id, "rt-abc") it was asked in is closed: "… was closed: " + nothing
// ("nothing done").
func PaneClosed(runtime, nothing string) common.Effect {
	return common.Say{Text: "the files pane of " + runtime + " was closed: " + nothing, Err: true}
}

// Answer acts on question q about t answered with OK: in is what was
// typed (AskDownloadTo, AskUpload), local the local path a Replace
// question was about. It acts on t, the target captured when the question
// opened, and only while this pane is open and idle; otherwise it says
// why it did nothing.
func (o *Overlay) Answer(q Question, t pane.Target, local, in string, c *common.Context) common.Effect {
	if o.closed || !o.p.Owns(t) {
		return PaneClosed(t.Runtime, "nothing done")
	}
	if o.p.Busy() {
		return common.Say{Text: "a transfer is already running", Err: true}
	}
	switch q {
	case AskDownloadTo:
		// Where it lands first: an existing file is asked about.
		return run(o.p.Plan(t, ExpandTilde(in)))
	case AskReplaceLocal:
		return run(o.p.Download(t, local, true))
	case AskUpload:
		return o.upload(t, ExpandTilde(in), c)
	case AskReplaceRemote:
		return run(o.p.Upload(t, local, true))
	case AskDelete:
		// A delete goes ahead only while the entry it named is still the
		// one on screen under the cursor: the same full path and kind.
		if cur, ok := o.p.Selection(); !ok || cur.Path != t.Path || cur.Dir != t.Dir {
			return common.Say{Text: jupyter.Where(t.Runtime, t.Path) + " is no longer the selected entry: nothing deleted", Err: true}
		}
		return run(o.p.Delete(t))
	}
	return nil
}

// upload uploads local into t (the directory shown), asking first when
// the listing has a file of that name.
func (o *Overlay) upload(t pane.Target, local string, c *common.Context) common.Effect {
	name := filepath.Base(local)
	where := jupyter.Where(t.Runtime, t.Path+"/"+name)
	var e jupyter.Model
	exists := false
	if o.p.Here() == t {
		// The listing on screen is of that directory: it says whether
		// the upload replaces a file (if the pane shows another one now,
		// the upload itself refuses to replace one).
		e, exists = entry(o.p, name)
	}
	switch {
	case exists && e.IsDir():
		return common.Say{Text: "not uploading " + termtext.Line(local) + ": a directory " + termtext.Line(where) + " is in the way", Err: true}
	case !exists:
		return run(o.p.Upload(t, local, false))
	}
	return common.Open{Overlay: o.ask.ReplaceRemote(t, local, e, c)}
}

// entry is the listed entry of the directory p shows named name (as the
// server sent it), if any: what an upload of that name replaces.
func entry(p *pane.Pane, name string) (jupyter.Model, bool) {
	for _, e := range p.Listing() {
		if e.Name == name {
			return e, true
		}
	}
	return jupyter.Model{}, false
}

// OnPlan acts on where a download would land (the pane.PlanMsg its Plan
// answered): an existing local file is asked about (y only) before it is
// replaced, with an Open of Asker.ReplaceLocal that the dashboard opens
// over this pane, as any overlay an answer brings; otherwise the download
// starts.
func (o *Overlay) OnPlan(pm pane.PlanMsg, c *common.Context) common.Effect {
	t := pm.Target
	switch {
	case o.closed || !o.p.Owns(t):
		return PaneClosed(t.Runtime, "nothing downloaded")
	case pm.Err != nil:
		return common.Say{Text: "not downloading " + termtext.Line(t.Name) + ": " + termtext.Line(ProblemText(pm.Err)), Err: true}
	case o.p.Busy():
		return common.Say{Text: "a transfer is already running", Err: true}
	case !pm.Plan.Exists:
		return run(o.p.Download(t, pm.Local, false))
	}
	return common.Open{Overlay: o.ask.ReplaceLocal(t, pm.Local, pm.Plan, c)}
}

// ProblemText is a local check's failure without the operation and path
// the dialog already names: "no such local file or directory: ./x".
func ProblemText(err error) string {
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

// ExpandTilde is p with a leading "~/" made the user's home directory
// (p as it is when there is none).
func ExpandTilde(p string) string {
	if len(p) > 1 && p[:2] == "~/" {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[2:])
		}
	}
	return p
}
