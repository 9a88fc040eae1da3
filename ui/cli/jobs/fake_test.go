package jobs

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	rjobs "github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/notify"
	"github.com/colabdash/colabdash/ui/ops"
)

// fakeBackend is Colab as the verbs see it: listed runtimes, each with
// its jobs, and the runtimes deleted.
type fakeBackend struct {
	mu       sync.Mutex
	rts      []api.Runtime
	runtimes map[string]*fakeRuntime // by name
	deleted  []string
	// deletedAfter is, for each runtime deleted, how many status reads
	// of its jobs had been made then.
	deletedAfter []int
	lists        int    // how often the runtimes were listed
	onList       func() // called after each listing
	failList     int    // the listing (from 1) that fails on the network
}

func (b *fakeBackend) Runtimes(context.Context) ([]api.Runtime, error) {
	b.lists++
	if b.onList != nil {
		b.onList()
	}
	if b.lists == b.failList {
		return nil, &jupyter.Error{Op: "list", Kind: jupyter.ErrTransport, Message: "connection reset"}
	}
	return b.rts, nil
}

func (b *fakeBackend) Open(_ context.Context, rt api.Runtime) (runtimeJobs, error) {
	if r, ok := b.runtimes[rt.Name]; ok {
		return r, nil
	}
	return nil, ops.ErrNoConnection
}

func (b *fakeBackend) DeleteRuntime(_ context.Context, name string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.deleted = append(b.deleted, name)
	b.deletedAfter = append(b.deletedAfter, b.runtimes[name].reads)
	return nil
}

func (b *fakeBackend) Classify(err error) *kit.ExitError { return kit.FileError(err, nil) }
func (b *fakeBackend) Close()                            {}

// fakeRuntime is one runtime's jobs.
type fakeRuntime struct {
	name  string
	jobs  []rjobs.Record
	tails map[string][]byte
	// status, when set, is what the n-th status read (from 1) finds.
	status func(n int) *rjobs.Status
	reads  int
	chunks []ops.LogChunk // what Log delivers
	// session is the one notebook session with a kernel, kernel what
	// its output channel delivers.
	session string
	kernel  []ops.LogChunk
	logged  ops.JobLogOptions
	stops   []time.Duration
	downs   []string
	downErr error // what Download returns (nil: success)
	// onDownload, when set, is called as each download starts.
	onDownload func()
}

func (r *fakeRuntime) List(context.Context) ([]rjobs.Record, error) { return r.jobs, nil }

func (r *fakeRuntime) Read(_ context.Context, id string) (rjobs.Record, error) {
	for _, rec := range r.jobs {
		if rec.Spec.ID == id {
			r.reads++
			if r.status != nil {
				rec.Status = r.status(r.reads)
				rec.Modified = now()
			}
			return rec, nil
		}
	}
	return rjobs.Record{}, &jupyter.Error{Op: "read job", Kind: jupyter.ErrNotFound}
}

func (r *fakeRuntime) Tail(_ context.Context, id string, _ int64) ([]byte, error) {
	return r.tails[id], nil
}

func (r *fakeRuntime) Log(_ string, o ops.JobLogOptions) ops.LogSource {
	r.logged = o
	return &scripted{chunks: r.chunks}
}

func (r *fakeRuntime) KernelLog(_ context.Context, session string) (ops.LogSource, error) {
	if session != r.session {
		return nil, &jupyter.Error{Op: "interrupt", Kind: jupyter.ErrNoKernel}
	}
	return &scripted{chunks: r.kernel}, nil
}

func (r *fakeRuntime) Stop(_ context.Context, _ string, grace time.Duration) error {
	r.stops = append(r.stops, grace)
	return nil
}

func (r *fakeRuntime) Download(_ context.Context, remote, local string, _, _ bool, _ func(string), done func(kit.CopiedFile)) error {
	r.downs = append(r.downs, remote)
	if r.onDownload != nil {
		r.onDownload()
	}
	if r.downErr != nil {
		return r.downErr
	}
	done(kit.CopiedFile{Src: r.name + ":" + remote, Dst: local, Bytes: 3})
	return nil
}

// scripted is a LogSource that delivers its chunks, then io.EOF; a
// chunk with Note "lost" ends it with state's lost error instead.
type scripted struct{ chunks []ops.LogChunk }

func (s *scripted) Next(context.Context) (ops.LogChunk, error) {
	if len(s.chunks) == 0 {
		return ops.LogChunk{}, io.EOF
	}
	c := s.chunks[0]
	s.chunks = s.chunks[1:]
	if c.Note == "lost" {
		return ops.LogChunk{}, state.ErrJobLost
	}
	return c, nil
}

func (s *scripted) Close() error { return nil }

var t0 = time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)

// record is a job on runtime rt started at t0 with status st.
func record(rt, id string, st *rjobs.Status, args ...string) rjobs.Record {
	return rjobs.Record{Runtime: rt, Spec: rjobs.Spec{ID: id, Argv0: "train.py", Args: args, Created: t0}, Status: st, Modified: t0, LogSize: -1}
}

// setup replaces the package's seams for one test: the backend, the
// clock (t0 + 30 s), the job notes, the state directory (a temporary
// one) and the poll interval.
func setup(t *testing.T, b *fakeBackend, notes []ops.JobNote) *[]string {
	t.Helper()
	forgotten := &[]string{}
	oldConnect, oldNow, oldLoad, oldForget, oldWait, oldNotify, oldState := connect, now, loadNotes, forgetNote, waitEvery, notifyOptions, stateDir
	t.Cleanup(func() {
		connect, now, loadNotes, forgetNote, waitEvery, notifyOptions, stateDir = oldConnect, oldNow, oldLoad, oldForget, oldWait, oldNotify, oldState
	})
	dir := t.TempDir() // the events' and deletes' claims, the holds: never the user's state directory
	stateDir = func() string { return dir }
	notifyOptions = func(v *verb) notify.Options {
		return notify.Options{StateDir: dir, Redactor: v.Red(), Getenv: func(string) string { return "" }, Environ: []string{}}
	}
	connect = func(context.Context, *verb) (backend, error) { return b, nil }
	now = func() time.Time { return t0.Add(30 * time.Second) }
	loadNotes = func() ([]ops.JobNote, error) { return notes, nil }
	forgetNote = func(id string) error { *forgotten = append(*forgotten, id); return nil }
	waitEvery = time.Millisecond
	return forgotten
}

// result is one run of a verb.
type result struct {
	code     int
	out, err string
}

// term says which streams are terminals and whether colour is drawn.
type term struct {
	out, color bool
	errTTY     bool            // stderr is a terminal
	ctx        context.Context // nil: never ends
}

// run runs the verb mk builds with args, its streams passing red as the
// program's do (kit.Streams.Protect).
func run(t *testing.T, red *api.Redactor, tm term, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	s := &kit.Streams{In: strings.NewReader(""), Out: &out, Err: &errb, OutTTY: tm.out, ErrTTY: tm.errTTY, Signals: &kit.SignalState{}}
	if red == nil {
		red = &api.Redactor{}
	}
	s.Protect(red)
	g := &kit.Globals{Logs: kit.Logs{Red: red}, Color: "never"}
	if tm.color {
		g.Color = "always"
	}
	var cmd *cobra.Command
	for _, c := range Commands(g, s) {
		if c.Name() == args[0] {
			cmd = c
		}
	}
	if cmd == nil {
		t.Fatalf("no verb %s", args[0])
	}
	cmd.SetArgs(args[1:])
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	ctx := tm.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	err := cmd.ExecuteContext(ctx)
	r := result{out: out.String(), err: errb.String()}
	if err != nil {
		var ee *kit.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("%v: not an exit error: %v", args, err)
		}
		r.code = ee.Code
		if ee.Msg != "" {
			r.err += "colabdash: " + red.Redact(ee.Msg) + "\n"
		}
	}
	return r
}
