//go:build linux

package poll

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/realjupyter"
	"github.com/colabdash/colabdash/api/colabfake/runtimeproxy"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/api/jupyter/jobs"
	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state/monitor"
	"github.com/colabdash/colabdash/ui/ops"
)

// realWait bounds every wait for what the real server shows: generous,
// for a busy 2-core machine.
const realWait = 90 * time.Second

// realRuntime is a runtime of the emulator whose proxy fronts a real
// jupyter-server (skipped where none can run, failed under
// COLABDASH_REQUIRE_JUPYTER=1): its connectionInfo and the server.
func realRuntime(t *testing.T, kernels bool) (api.ConnectionInfo, *realjupyter.Server) {
	t.Helper()
	js := realjupyter.Require(t, realjupyter.Options{Kernels: kernels})
	srv, _, err := colabfake.Start(context.Background(), "127.0.0.1:0", colabfake.Options{Seed: colabfake.SeedEmpty, JupyterUpstream: js.URL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	rt, err := srv.AddRuntime(api.Runtime{Name: "runtimes/rt-real", ConnectionInfo: &api.ConnectionInfo{}})
	if err != nil {
		t.Fatal(err)
	}
	return *rt.ConnectionInfo, js
}

// readVerdict is one monitor poll of ci (kernels, terminals; the
// resources of the real server are not offered) recorded in store, and
// the runtime's verdict at now.
func readVerdict(t *testing.T, ctx context.Context, store *monitor.Store, ci api.ConnectionInfo, now time.Time) monitor.Verdict {
	t.Helper()
	r := ops.ReadPoll(ctx, apimon.New(apimon.Options{}), ci, monitor.Poll{Kernels: true, Terminals: true})
	if r.KerErr != nil || r.TermErr != nil {
		t.Fatalf("poll: kernels %v, terminals %v", r.KerErr, r.TermErr)
	}
	store.RecordKernels("rt-real", now, r.Kernels, nil)
	store.RecordTerminals("rt-real", now, r.Terminals, nil)
	return store.Get("rt-real").Verdict(now)
}

// A terminal of the real server typed in (POST api/terminals, then its
// websocket) keeps the runtime off idle: busy by the terminal, whose
// last activity the server moved; two minutes later it is quiet, and the
// runtime idle since the terminal's last activity.
func TestRealTerminalKeepsTheRuntimeBusy(t *testing.T) {
	ci, _ := realRuntime(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), realWait)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ci.URL+"api/terminals", nil)
	req.Header.Set(runtimeproxy.TokenHeader, ci.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var term struct {
		Name string `json:"name"`
	}
	err = json.NewDecoder(resp.Body).Decode(&term)
	resp.Body.Close()
	if err != nil || term.Name == "" {
		t.Fatalf("POST api/terminals: HTTP %d, %v", resp.StatusCode, err)
	}
	t.Cleanup(func() {
		req, _ := http.NewRequest(http.MethodDelete, ci.URL+"api/terminals/"+term.Name, nil)
		req.Header.Set(runtimeproxy.TokenHeader, ci.Token)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	})
	store := monitor.NewStore()
	before := readVerdict(t, ctx, store, ci, time.Now())
	ws := "ws" + strings.TrimPrefix(ci.URL, "http") + "terminals/websocket/" + term.Name + "?" + runtimeproxy.TokenQuery + "=" + ci.Token
	c, _, err := websocket.Dial(ctx, ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	if err := c.Write(ctx, websocket.MessageText, []byte(`["stdin","echo colabdash-typed\r"]`)); err != nil {
		t.Fatal(err)
	}
	for seen := ""; strings.Count(seen, "colabdash-typed\n") < 2; { // the echo, then the command's output
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("the terminal's output never came: %v (%q)", err, seen)
		}
		var frame []any
		if json.Unmarshal(b, &frame) == nil && len(frame) == 2 && frame[0] == "stdout" {
			text, _ := frame[1].(string)
			seen += strings.ReplaceAll(text, "\r", "")
		}
	}
	var v monitor.Verdict
	for {
		v = readVerdict(t, ctx, store, ci, time.Now())
		ts := store.Get("rt-real").Terminals
		if len(ts) == 1 && ts[0].LastActivity.After(before.Since) && v.State == monitor.StateBusy {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("a terminal just typed in: %+v, terminals %+v", v, ts)
		case <-time.After(100 * time.Millisecond): // the next poll, not a guess at a delay
		}
	}
	if v.By != monitor.SignalTerminal || !strings.HasPrefix(v.Detail, "terminal "+term.Name+" ") {
		t.Errorf("a terminal just typed in: %s by %q (%q)", v.State, v.By, v.Detail)
	}
	last := store.Get("rt-real").Terminals[0].LastActivity
	later := last.Add(monitor.TerminalActiveWithin + time.Minute)
	if v := store.Get("rt-real").Verdict(later); v.State != monitor.StateIdle || v.By != monitor.SignalTerminal || v.For != 3*time.Minute {
		t.Errorf("three minutes after the terminal's last activity: %s by %q for %v", v.State, v.By, v.For)
	}
	// The shell ends (~. in colabdash shell: the terminal is deleted); the
	// server no longer lists it, yet its activity still counts: quiet since
	// then, not since anything older, and not busy (it is gone).
	c.CloseNow()
	req, _ = http.NewRequestWithContext(ctx, http.MethodDelete, ci.URL+"api/terminals/"+term.Name, nil)
	req.Header.Set(runtimeproxy.TokenHeader, ci.Token)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode/100 != 2 {
		t.Fatalf("DELETE api/terminals/%s: %v %v", term.Name, resp, err)
	} else {
		resp.Body.Close()
	}
	v = readVerdict(t, ctx, store, ci, last.Add(30*time.Second))
	if ts := store.Get("rt-real").Terminals; len(ts) != 0 {
		t.Fatalf("the closed terminal is still listed: %+v", ts)
	}
	if v.State != monitor.StateIdle || v.By != monitor.SignalTerminal || !v.Since.Equal(last) || v.For != 30*time.Second {
		t.Errorf("30 s after the closed terminal's last activity: %s by %q since %s for %v, want idle by terminal since %s",
			v.State, v.By, v.Since, v.For, last)
	}
}

// A job running on the real server (Prepare, then LauncherCode run with
// python in its directory, as a kernel runs it) keeps a runtime whose
// kernel is idle off idle: the jobs listing counts it running.
func TestRealJobKeepsTheRuntimeBusy(t *testing.T) {
	ci, js := realRuntime(t, true)
	ctx, cancel := context.WithTimeout(context.Background(), realWait)
	defer cancel()
	kernelUp(t, ctx, ci, realjupyter.StartKernel(t, ci))
	jc, err := jupyter.New(jupyter.Options{Runtime: "runtimes/rt-real", Info: ci})
	if err != nil {
		t.Fatal(err)
	}
	dir := "content/job-signal"
	if err := jc.MkdirAll(ctx, dir); err != nil {
		t.Fatal(err)
	}
	script := "import time\ntime.sleep(300)\n"
	if _, err := jc.Upload(ctx, dir+"/sleep.py", strings.NewReader(script), int64(len(script)), nil); err != nil {
		t.Fatal(err)
	}
	spec := jobs.Spec{ID: jobs.NewID("sleep.py"), Cwd: dir, File: dir + "/sleep.py", Argv0: "sleep.py", Created: time.Now().UTC()}
	if err := jobs.Prepare(ctx, jc, spec); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, realjupyter.Python(), "-c", jobs.LauncherCode(spec.ID))
	cmd.Dir = filepath.Join(js.Root, filepath.FromSlash(dir))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("launcher: %v\n%s", err, out)
	}
	sup, err := jobs.ParseLaunch(string(out))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { killJob(js.Root, spec.ID, sup) })
	store := monitor.NewStore()
	var v monitor.Verdict
	for {
		recs, err := jobs.List(ctx, jc)
		if err != nil {
			t.Fatal(err)
		}
		running, lastEnd := ops.JobSignal(recs, time.Now())
		store.RecordJobs("rt-real", running, lastEnd, true)
		v = readVerdict(t, ctx, store, ci, time.Now())
		if store.Get("rt-real").Activity(time.Now()).State == monitor.StateIdle && running == 1 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no idle kernel beside a running job: %+v, %d running", v, running)
		case <-time.After(200 * time.Millisecond):
		}
	}
	if v.State != monitor.StateBusy || v.By != monitor.SignalJob || v.Detail != "1 running" {
		t.Errorf("an idle kernel beside a running job: %s by %q (%q)", v.State, v.By, v.Detail)
	}
}

// killJob kills what job id left running: its process group (the pid its
// status names) and its supervisor sup.
func killJob(root, id string, sup int) {
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(jobs.Dir(id)), jobs.StatusFile))
	var st jobs.Status
	if err == nil && json.Unmarshal(b, &st) == nil && st.Pid > 1 {
		_ = syscall.Kill(-st.Pid, syscall.SIGKILL)
	}
	if sup > 1 {
		_ = syscall.Kill(sup, syscall.SIGKILL)
	}
}

// kernelUp connects a channels socket to kernel kid of ci and asks it for
// its info until the server lists it idle (a kernel nobody connected to
// stays "starting"), then closes the socket.
func kernelUp(t *testing.T, ctx context.Context, ci api.ConnectionInfo, kid string) {
	t.Helper()
	ws := "ws" + strings.TrimPrefix(ci.URL, "http") + "api/kernels/" + kid + "/channels?" + runtimeproxy.TokenQuery + "=" + ci.Token
	c, _, err := websocket.Dial(ctx, ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(websocket.StatusNormalClosure, "")
	client := apimon.New(apimon.Options{})
	for n := 1; ; n++ {
		ks, err := client.Kernels(ctx, ci)
		if err == nil && len(ks) == 1 && ks[0].ExecutionState == "idle" {
			return
		}
		info := `{"header":{"msg_id":"info-` + strconv.Itoa(n) + `","username":"test","session":"s-1","msg_type":"kernel_info_request","version":"5.3"},` +
			`"parent_header":{},"metadata":{},"content":{},"channel":"shell","buffers":[]}`
		if err := c.Write(ctx, websocket.MessageText, []byte(info)); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the kernel never came up: %+v, %v", ks, err)
		case <-time.After(200 * time.Millisecond): // the next listing
		}
	}
}

// gpuRuntimes is one emulated runtime, "rt-gpu", a T4 whose GPU is busy:
// the emulator's GPU figures (the real server has no GPU).
type gpuRuntimes struct{ expire time.Time }

func (g gpuRuntimes) Now() time.Time { return time.Now() }
func (g gpuRuntimes) Token(id string) (string, time.Time, bool) {
	return "tok-gpu", g.expire, id == "rt-gpu"
}
func (gpuRuntimes) Earlier(string) []api.ConnectionInfo  { return nil }
func (gpuRuntimes) Exists(id string) bool                { return id == "rt-gpu" }
func (gpuRuntimes) Kernels(string) []runtimeproxy.Kernel { return nil }
func (gpuRuntimes) HasKernel(string, string) bool        { return false }
func (gpuRuntimes) InterruptKernel(string, string) bool  { return false }
func (gpuRuntimes) TouchKernel(string, string)           {}
func (gpuRuntimes) Activity(id string) (runtimeproxy.Activity, bool) {
	return runtimeproxy.Activity{Spec: api.RuntimeSpecKey{Variant: api.VariantGPU, Accelerator: "T4", Shape: api.ShapeStandard},
		Sessions: 1, Runs: 1, GPUBusy: true, GPUEverUsed: true}, id == "rt-gpu"
}

// A real kernel that is idle beside a GPU above 5 % (the emulator's
// figures of a busy T4) does not make the runtime idle: the GPU keeps it
// busy, and says its utilisation.
func TestRealIdleKernelBesideABusyGPU(t *testing.T) {
	ci, _ := realRuntime(t, true)
	ctx, cancel := context.WithTimeout(context.Background(), realWait)
	defer cancel()
	kernelUp(t, ctx, ci, realjupyter.StartKernel(t, ci))
	pctx, pcancel := context.WithCancel(context.Background())
	px, err := runtimeproxy.New(runtimeproxy.Config{Context: pctx, FilesDir: t.TempDir()}, gpuRuntimes{expire: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(px)
	t.Cleanup(func() { pcancel(); hs.Close(); px.Close() })
	gci := api.ConnectionInfo{URL: hs.URL + runtimeproxy.Prefix + "rt-gpu/", Token: "tok-gpu"}
	res, err := apimon.New(apimon.Options{}).Resources(ctx, gci)
	if err != nil {
		t.Fatal(err)
	}
	store := monitor.NewStore()
	now := time.Now()
	store.RecordResources("rt-real", now, res, nil)
	v := readVerdict(t, ctx, store, ci, now)
	if a := store.Get("rt-real").Activity(now); a.State != monitor.StateIdle {
		t.Fatalf("the real kernel reads %s, want idle", a.State)
	}
	if v.State != monitor.StateBusy || v.By != monitor.SignalGPU || v.Detail != "87%" {
		t.Errorf("an idle kernel beside a GPU at 87 %%: %s by %q (%q)", v.State, v.By, v.Detail)
	}
}
