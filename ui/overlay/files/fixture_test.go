package files

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/colabfaketest"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
	"github.com/colabdash/colabdash/ui/overlay/files/pane"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

// testNow is the fixture's clock.
var testNow = commontest.T0

// rig is a files pane on runtime rt-files of a Colab emulator on
// loopback, with the Context the dashboard would give it and an asker
// that records what the pane asked.
type rig struct {
	srv *colabfake.Server
	rt  api.Runtime
	c   *common.Context
	o   *Overlay
	// open is the pane's Jupyter client opener (through the proxy, if
	// any): another pane on the same runtime (reopen) uses it too.
	open pane.Opener
}

// newRig starts the emulator with rt-files holding files (remote path →
// body, directories made as needed) and opens its files pane on
// content/; proxy, if set, turns the runtime's proxy URL into the one the
// pane uses (a proxy in front of it).
func newRig(t *testing.T, files map[string]string, readOnly bool, proxy func(string) string) *rig {
	t.Helper()
	return newRigWith(t, colabfake.Options{}, files, readOnly, proxy)
}

// newRigWith is newRig on an emulator with the options o.
func newRigWith(t *testing.T, o colabfake.Options, files map[string]string, readOnly bool, proxy func(string) string) *rig {
	t.Helper()
	srv, _ := colabfaketest.Start(t, o)
	rt, err := srv.AddRuntime(api.Runtime{Name: "runtimes/rt-files", ConnectionInfo: &api.ConnectionInfo{}})
	if err != nil {
		t.Fatal(err)
	}
	// The Context as the dashboard gives it: rt-files selected, the key
	// map read-only when readOnly, a 100×30 screen.
	r := &rig{srv: srv, rt: rt, c: commontest.OverlayContext(100, 30, readOnly, rt)}
	for p, body := range files {
		r.put(t, p, body)
	}
	ci := *rt.ConnectionInfo
	if proxy != nil {
		ci.URL = proxy(ci.URL)
	}
	// get_runtime as the dashboard's opener renews through it: NOT_FOUND
	// once the runtime is reclaimed.
	renew := func(context.Context) (api.ConnectionInfo, error) {
		for _, x := range srv.Runtimes() {
			if x.Name == rt.Name && x.ConnectionInfo != nil {
				return *x.ConnectionInfo, nil
			}
		}
		return api.ConnectionInfo{}, &api.Error{Code: api.NotFound, Message: rt.Name + " not found"}
	}
	open := func(ctx context.Context) (*jupyter.Client, error) {
		return jupyter.New(jupyter.Options{Runtime: rt.Name, Info: ci, Renew: renew})
	}
	r.open = open
	r.o = r.newPane(t)
	return r
}

// newPane opens a files pane of r's runtime on content/ and lists it.
func (r *rig) newPane(t *testing.T) *Overlay {
	t.Helper()
	p := pane.New(context.Background(), r.rt.ID(), r.open, r.c.Now)
	p.SetLocation(time.UTC)
	o := New(p, &asker{})
	t.Cleanup(p.Close)
	(&rig{srv: r.srv, rt: r.rt, c: r.c, o: o, open: r.open}).drive(t, o.Init())
	return o
}

// reopen is what f does after the pane was closed: another files pane of
// the same runtime, on the same emulator and Context, listed.
func (r *rig) reopen(t *testing.T) *rig {
	t.Helper()
	return &rig{srv: r.srv, rt: r.rt, c: r.c, o: r.newPane(t), open: r.open}
}

// workDir makes a new directory holding files (path → body, directories
// made as needed) the test's current one, where the pane's transfers
// land and look, and returns it.
func workDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// client is a Jupyter client straight to the runtime (no proxy).
func (r *rig) client(t *testing.T) *jupyter.Client {
	t.Helper()
	c, err := jupyter.New(jupyter.Options{Runtime: r.rt.Name, Info: *r.rt.ConnectionInfo})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// put writes body to the runtime's path, making its directory.
func (r *rig) put(t *testing.T, path, body string) {
	t.Helper()
	c := r.client(t)
	if i := strings.LastIndex(path, "/"); i > 0 {
		if err := c.MkdirAll(context.Background(), path[:i]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Upload(context.Background(), path, strings.NewReader(body), int64(len(body)), nil); err != nil {
		t.Fatal(err)
	}
}

// exists reports whether path is on the runtime.
func (r *rig) exists(t *testing.T, path string) bool {
	t.Helper()
	_, err := r.client(t).Stat(context.Background(), path)
	if err != nil && !errors.Is(err, jupyter.ErrNotFound) {
		t.Fatal(err)
	}
	return err == nil
}

// press hands the keys to the overlay on top of the pane (the pane, or a
// filter line it opened) as the dashboard's router would, and returns
// the last key's effect; the commands of Run and Close are driven.
func (r *rig) press(t *testing.T, keys ...string) common.Effect {
	t.Helper()
	var top common.Overlay = r.o
	route := func(e common.Effect) common.Overlay {
		switch x := e.(type) {
		case common.Run:
			r.drive(t, x.Cmd)
		case common.Close:
			r.drive(t, x.Cmd)
			top = r.o
		case common.Open:
			if f, ok := x.Overlay.(*FilterOverlay); ok {
				top = f
			}
		}
		return top
	}
	return commontest.Keyboard{Route: route}.Press(t, r.o, r.c, keys...)
}

// drive runs cmd and every command its messages lead to
// (commontest.Drive), handing each message to the pane (a plan to
// OnPlan); it returns the last effect OnPlan or a transfer's end gave.
func (r *rig) drive(t *testing.T, cmd tea.Cmd) common.Effect {
	t.Helper()
	var last common.Effect
	commontest.Drive(t, cmd, func(msg tea.Msg) tea.Cmd {
		if pm, ok := msg.(pane.PlanMsg); ok {
			last = r.o.OnPlan(pm, r.c)
			if run, ok := last.(common.Run); ok {
				return run.Cmd
			}
			return nil
		}
		next, mine := r.o.Pane().Update(msg)
		if !mine {
			t.Fatalf("the pane did not take its own message %T", msg)
		}
		if d, ok := msg.(pane.DoneMsg); ok {
			last = Finished(d)
		}
		return next
	})
	return last
}

// asker records the pane's questions instead of building dialogs.
type asker struct{}

// question is a question the pane asked: which, about what.
type question struct {
	ask    Question
	target pane.Target
	local  string
	plan   pane.DownloadPlan
	entry  jupyter.Model
}

func (q *question) HandleKey(tea.KeyMsg, *common.Context) common.Effect { return nil }
func (q *question) Draw(*common.Context, *frame.Frame)                  {}
func (q *question) Fits(*common.Context) bool                           { return true }
func (q *question) Keys(*common.Context) []key.Binding                  { return nil }
func (q *question) Name() string                                        { return "dialog" }

func (asker) DownloadTo(t pane.Target, _ time.Time) common.Overlay {
	return &question{ask: AskDownloadTo, target: t}
}
func (asker) Upload(p *pane.Pane, _ time.Time) common.Overlay {
	return &question{ask: AskUpload, target: p.Here()}
}
func (asker) Delete(t pane.Target, _ time.Time) common.Overlay {
	return &question{ask: AskDelete, target: t}
}
func (asker) ReplaceLocal(t pane.Target, local string, plan pane.DownloadPlan, _ *common.Context) common.Overlay {
	return &question{ask: AskReplaceLocal, target: t, local: local, plan: plan}
}
func (asker) ReplaceRemote(t pane.Target, local string, e jupyter.Model, _ *common.Context) common.Overlay {
	return &question{ask: AskReplaceRemote, target: t, local: local, entry: e}
}

// asked is the question e opens, or nil.
func asked(e common.Effect) *question {
	if o, ok := e.(common.Open); ok {
		q, _ := o.Overlay.(*question)
		return q
	}
	return nil
}

// said is the status text e says ("" when it says nothing) and whether
// as an error about a pane key.
func said(e common.Effect) (text string, err, paneKey bool) {
	s, ok := e.(common.Say)
	if !ok {
		return "", false, false
	}
	return s.Text, s.Err, s.Pane
}
