package jobs

import (
	"context"
	"errors"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	rjobs "github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/ops"
)

// backend is what the verbs ask of Colab: the runtimes, each runtime's
// jobs, and deleting a runtime. The live one (liveBackend) goes through
// the profile's connection; the package's tests use a fake.
type backend interface {
	// Runtimes lists the runtimes (list_runtimes).
	Runtimes(ctx context.Context) ([]api.Runtime, error)
	// Open reaches runtime rt's Jupyter server (as listed: its listed
	// proxy token while it is good, else get_runtime's; the token renewed
	// on a refusal or as it nears expiry).
	Open(ctx context.Context, rt api.Runtime) (runtimeJobs, error)
	// DeleteRuntime deletes runtime name (delete_runtime).
	DeleteRuntime(ctx context.Context, name string) error
	// Classify turns a failure into its exit code and line.
	Classify(err error) *kit.ExitError
	// Close releases the connection.
	Close()
}

// runtimeJobs are the jobs of one runtime (api/jupyter/jobs).
type runtimeJobs interface {
	List(ctx context.Context) ([]rjobs.Record, error)
	Read(ctx context.Context, id string) (rjobs.Record, error)
	// Tail is the last n bytes of job id's log.
	Tail(ctx context.Context, id string, n int64) ([]byte, error)
	Log(id string, o ops.JobLogOptions) ops.LogSource
	// KernelLog follows the output channel of session's kernel
	// (ops.KernelLog); jupyter.ErrNoKernel when no kernel matches it.
	KernelLog(ctx context.Context, session string) (ops.LogSource, error)
	Stop(ctx context.Context, id string, grace time.Duration) error
	// Download copies remote (absolute on the runtime) to local, as
	// cp -r does (into local when dir), replacing local files only with
	// force; warn gets the copy's warnings, done each file copied.
	Download(ctx context.Context, remote, local string, dir, force bool, warn func(string), done func(kit.CopiedFile)) error
}

// connect is how the verbs reach Colab (tests replace it).
var connect = func(ctx context.Context, v *verb) (backend, error) {
	conn, err := v.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &liveBackend{v: v, conn: conn}, nil
}

// liveBackend is the profile's connection.
type liveBackend struct {
	v    *verb
	conn *kit.Connection
}

func (b *liveBackend) Runtimes(ctx context.Context) ([]api.Runtime, error) {
	return b.conn.Svc.ListRuntimes(ctx)
}

func (b *liveBackend) Open(ctx context.Context, listed api.Runtime) (runtimeJobs, error) {
	g := b.v.G
	jc, rt, err := ops.OpenListed(ctx, b.conn.Svc, listed, ops.JupyterOptions{Redactor: g.Logs.Red, Logger: g.Logs.Log})
	if err != nil {
		return nil, err
	}
	return &liveRuntime{b: b, jc: jc, rt: rt}, nil
}

func (b *liveBackend) DeleteRuntime(ctx context.Context, name string) error {
	return b.conn.Svc.DeleteRuntime(ctx, name)
}

func (b *liveBackend) Classify(err error) *kit.ExitError { return kit.FileError(err, b.conn.Creds) }

func (b *liveBackend) Close() { b.conn.Close() }

// liveRuntime is one runtime's Jupyter server.
type liveRuntime struct {
	b  *liveBackend
	jc *jupyter.Client
	rt api.Runtime
}

// again calls f, and up to twice more while the proxy refuses the
// token: the client renewed it then, and another colabdash process
// renewing the same runtime's token (wait in one terminal, stop in
// another) may have replaced the one a request carried. Every call it
// wraps reads, or writes the same stop file again.
func again[T any](f func() (T, error)) (T, error) {
	v, err := f()
	for i := 0; i < 2 && errors.Is(err, jupyter.ErrRefused); i++ {
		v, err = f()
	}
	return v, err
}

func (r *liveRuntime) List(ctx context.Context) ([]rjobs.Record, error) {
	return again(func() ([]rjobs.Record, error) { return rjobs.List(ctx, r.jc) })
}

func (r *liveRuntime) Read(ctx context.Context, id string) (rjobs.Record, error) {
	return again(func() (rjobs.Record, error) { return rjobs.Read(ctx, r.jc, id) })
}

func (r *liveRuntime) Tail(ctx context.Context, id string, n int64) ([]byte, error) {
	return again(func() ([]byte, error) {
		b, _, err := rjobs.TailLog(ctx, r.jc, id, n)
		return b, err
	})
}

func (r *liveRuntime) Log(id string, o ops.JobLogOptions) ops.LogSource {
	return ops.JobLog(r.jc, id, o)
}

func (r *liveRuntime) KernelLog(ctx context.Context, session string) (ops.LogSource, error) {
	return ops.KernelLog(ctx, r.jc, session)
}

func (r *liveRuntime) Stop(ctx context.Context, id string, grace time.Duration) error {
	_, err := again(func() (struct{}, error) { return struct{}{}, rjobs.Stop(ctx, r.jc, id, grace) })
	return err
}

func (r *liveRuntime) Download(ctx context.Context, remote, local string, dir, force bool, warn func(string), done func(kit.CopiedFile)) error {
	opts := jupyter.CopyOptions{Recursive: true, Overwrite: force, Warn: warn,
		OnFile: func(f jupyter.FileResult) {
			done(kit.CopiedFile{Src: kit.AbsRemoteArg(f.Src), Dst: f.Dst, Bytes: f.Bytes, Seconds: f.Duration.Seconds()})
		},
		// A directory's symbolic links are skipped, as cp -r down
		// skips them, asked in a session of colabdash's own.
		Links: r.linkCheck}
	return r.jc.DownloadPath(ctx, remote, local, dir, opts)
}

// linkCheck lists the links below remote in a session opened for it
// and closed after.
func (r *liveRuntime) linkCheck(ctx context.Context, remote string) (jupyter.Links, error) {
	svc := r.b.conn.Svc
	se, err := svc.CreateSession(ctx, r.rt.Name, state.NewSessionID())
	if err != nil {
		return jupyter.Links{}, err
	}
	links, err := ops.ListLinks(ctx, svc, se.Name, remote)
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if derr := svc.DeleteSession(dctx, se.Name); derr != nil {
		r.b.v.Note("could not close session " + kit.SessionRef(se.Name) + " (opened to check a directory for symbolic links): " + kit.Classify(derr, r.b.conn.Creds).Msg)
	}
	return links, err
}
