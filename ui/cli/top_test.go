package cli

// colabdash top: one line per runtime of RAM, disk, GPU and
// kernel activity, read through each runtime's proxy.

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/cli/kit/kittest"
	"github.com/colabdash/colabdash/ui/cli/top"
	"github.com/colabdash/colabdash/ui/termtext/termtexttest"
)

// maskTop hides what changes from run to run in top's text: clock times
// and the figures of durations ("2h" reads "Nh", "4m12s" "NmNs").
func maskTop(s string) []byte {
	s = regexp.MustCompile(`\b\d{2}:\d{2}:\d{2}\b`).ReplaceAllString(s, "HH:MM:SS")
	s = regexp.MustCompile(`\b\d+[ydhms](\d+[dhms])?\b`).ReplaceAllStringFunc(s, func(d string) string {
		return regexp.MustCompile(`\d+`).ReplaceAllString(d, "N")
	})
	return []byte(s)
}

// topEnv is an emulator whose clock runs two hours behind, so every
// kernel's last activity is two hours old: idle past the hour of Colab's
// unofficial idle limit, and a kernel starting since then never
// connected.
func topEnv(t *testing.T, o colabfake.Options) *verbEnv {
	t.Helper()
	o.Now = colabfake.NewClock(time.Now().Add(-2 * time.Hour)).Now
	if o.Seed == "" {
		o.Seed = colabfake.SeedDemo
	}
	return newVerbEnv(t, o)
}

// Every runtime, as a user reads them: the figures of each spec, the T4
// whose GPU was never used, idle words that read without colour (IDLE
// past an hour), the kernel stuck starting, and the TPU runtime whose
// proxy token expired (renewed once with get_runtime, then read).
func TestTopGolden(t *testing.T) {
	e := topEnv(t, colabfake.Options{StuckKernel: true})
	code, out, errs := e.run("top")
	if code != 0 {
		t.Fatalf("top: exit %d, stderr %q\n%s", code, errs, out)
	}
	termtexttest.NoControls(t, "top", out)
	for _, want := range []string{"IDLE 2h", "never connected", "GPU never used", "Tesla T4 0.0/15.0 GiB", "1.0/173.0 GiB"} {
		if !strings.Contains(out, want) {
			t.Errorf("top does not say %q:\n%s", want, out)
		}
	}
	if n := e.srv.CallCount("get_runtime"); n != 1 {
		t.Errorf("get_runtime called %d times, want 1 (the expired token of rt-v6edemo2mw, renewed once)", n)
	}
	golden.RequireEqual(t, maskTop("stdout:\n"+out+"stderr:\n"+errs))
}

// A stock Jupyter server (no api/colab/resources) says so in its row and
// is not a failure; its kernels are still shown; the token is not renewed
// for the stock server's 404.
func TestTopStockServer(t *testing.T) {
	e := topEnv(t, colabfake.Options{NoColabExtensions: true})
	code, out, errs := e.run("top", "rt-t4", "rt-cpu")
	if code != 0 {
		t.Fatalf("top: exit %d, stderr %q\n%s", code, errs, out)
	}
	if strings.Count(out, "resources not offered by this runtime") != 2 {
		t.Errorf("want both rows to say the resources are not offered:\n%s", out)
	}
	if n := e.srv.CallCount("get_runtime"); n != 0 {
		t.Errorf("get_runtime called %d times for a stock server's 404, want 0", n)
	}
	golden.RequireEqual(t, maskTop("stdout:\n"+out+"stderr:\n"+errs))
}

// A 5xx reads "resources unavailable: …" in the row; every runtime
// failing exits 4, some of them 1; --json says the same with ok false.
func TestTopServerError(t *testing.T) {
	e := topEnv(t, colabfake.Options{})
	e.srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, PathPrefix: "api/colab/resources", Status: 500, Body: "boom", Times: -1})
	code, out, errs := e.run("top", "rt-t4demo7k2p")
	if code != kit.ExitAPI {
		t.Errorf("top with a 500: exit %d, want %d", code, kit.ExitAPI)
	}
	if !strings.Contains(out, "resources unavailable: HTTP 500") {
		t.Errorf("top with a 500:\n%s", out)
	}
	golden.RequireEqual(t, maskTop("stdout:\n"+out+"stderr:\n"+errs))

	code, out, _ = e.run("top", "rt-t4demo7k2p", "--json")
	var rep top.Report
	mustJSON(t, out, &rep)
	if code != kit.ExitAPI || rep.OK || len(rep.Runtimes) != 1 || rep.Runtimes[0].ResourcesStatus != "unavailable" ||
		!strings.Contains(rep.Runtimes[0].ResourcesError, "HTTP 500") || rep.Runtimes[0].Resources != nil || rep.Runtimes[0].Kernels == nil {
		t.Errorf("top --json with a 500: exit %d\n%s", code, out)
	}

	e2 := topEnv(t, colabfake.Options{})
	e2.srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, PathPrefix: "api/colab/resources", Status: 503, Times: 1})
	if code, out, _ := e2.run("top", "rt-t4demo7k2p", "rt-cpudemo4qx"); code != kit.ExitPartial || !strings.Contains(out, "resources unavailable: HTTP 503") {
		t.Errorf("top with one runtime failing: exit %d, want %d\n%s", code, kit.ExitPartial, out)
	}
}

// The stuck kernel and the idle ones in --json: states, counts, the idle
// warning, and the figures of the T4.
func TestTopJSON(t *testing.T) {
	e := topEnv(t, colabfake.Options{StuckKernel: true})
	code, out, errs := e.run("top", "--json")
	if code != 0 {
		t.Fatalf("top --json: exit %d %q\n%s", code, errs, out)
	}
	var rep top.Report
	mustJSON(t, out, &rep)
	by := map[string]top.RuntimeReport{}
	for _, r := range rep.Runtimes {
		by[string(r.Name)] = r
	}
	if !rep.OK || len(rep.Runtimes) != 4 {
		t.Fatalf("report %s", out)
	}
	stuck := by["runtimes/"+colabfake.StuckKernelRuntime].Activity
	if stuck.State != "never connected" || stuck.NeverConnected != 1 || stuck.IdleWarning {
		t.Errorf("stuck kernel: %+v", stuck)
	}
	t4 := by["runtimes/rt-t4demo7k2p"]
	if t4.Activity.State != "idle" || !t4.Activity.IdleWarning || t4.Activity.ForSeconds < 3600 ||
		t4.Resources == nil || len(t4.Resources.GPUs) != 1 || !t4.Resources.GPUNeverUsed || t4.Resources.Memory == nil ||
		t4.Resources.Memory.TotalBytes != 13_605_834_752 {
		t.Errorf("T4: %+v", t4)
	}
}

// --watch off a terminal appends time-stamped rows under one header, a
// round per interval; on a terminal it redraws in place.
func TestTopWatch(t *testing.T) {
	e := topEnv(t, colabfake.Options{})
	for _, tty := range []bool{false, true} {
		var out, errb kittest.Buffer
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan int, 1)
		go func() {
			done <- runStreamsContext(ctx, append([]string{"top", "rt-t4demo7k2p", "--watch", "1s"}, e.flags...),
				&kit.Streams{In: strings.NewReader(""), Out: &out, Err: &errb, OutTTY: tty})
		}()
		deadline := time.Now().Add(60 * time.Second)
		for strings.Count(out.String(), "rt-t4demo7k2p") < 3 {
			select {
			case code := <-done:
				t.Fatalf("top --watch ended by itself: exit %d %q %q", code, out.String(), errb.String())
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("top --watch drew fewer than 3 rounds in 60 s: %q %q", out.String(), errb.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("top --watch ended: exit %d %q", code, errb.String())
		}
		s := out.String()
		if tty {
			if strings.Count(s, "\x1b[H\x1b[2J") < 3 || strings.Count(s, "RUNTIME") < 3 {
				t.Errorf("on a terminal, want each round drawn in place:\n%q", s)
			}
			continue
		}
		termtexttest.NoControls(t, "top --watch", s)
		if strings.Count(s, "RUNTIME") != 1 || !strings.HasPrefix(s, "TIME ") ||
			!regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d  rt-t4demo7k2p  `).MatchString(s) {
			t.Errorf("off a terminal, want rows appended under one header:\n%s", s)
		}
	}
}

// A bad --watch interval and an unknown runtime are usage errors; --json
// prints its failure document.
func TestTopUsage(t *testing.T) {
	e := topEnv(t, colabfake.Options{})
	for _, args := range [][]string{{"top", "--watch=0s"}, {"top", "--watch", "0"}} {
		if code, _, errs := e.run(args...); code != kit.ExitUsage {
			t.Errorf("%v: exit %d, want 2 (%q)", args, code, errs)
		}
	}
	if code, _, errs := e.run("top", "rt-nope"); code != kit.ExitNotFound {
		t.Errorf("top rt-nope: exit %d, want 6 (%q)", code, errs)
	}
	code, out, _ := e.run("top", "rt-nope", "--json")
	var rep top.Report
	mustJSON(t, out, &rep)
	if code != kit.ExitNotFound || rep.OK || rep.Error == nil || rep.Error.Code != "not_found" || !strings.Contains(rep.Error.Message, "rt-nope") || rep.Runtimes == nil {
		t.Errorf("top rt-nope --json: exit %d\n%s", code, out)
	}
}

// While code that uses the GPU runs, the T4's row says busy with the
// GPU's utilisation, and no longer that the GPU was never used.
func TestTopBusyGPU(t *testing.T) {
	e := demoVerbEnv(t)
	// The code sleeps a minute; once top has seen it, closing its session
	// aborts it.
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.run("exec", "rt-t4demo7k2p", "-c", "x = 'cuda'\ntime.sleep(60)")
	}()
	var out string
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		_, out, _ = e.run("top", "rt-t4demo7k2p")
		if strings.Contains(out, " 1 busy ") && strings.Contains(out, "87%") { // top reads the resources before the kernels: a round may see one busy, not the other
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("top never showed the T4 busy within 60 s:\n%s", out)
		}
	}
	if strings.Contains(out, "GPU never used") || !regexp.MustCompile(`(?m)  busy( \d+[dhms](\d+[hms])?)?(  |$)`).MatchString(out) {
		t.Errorf("top while the GPU is busy:\n%s", out)
	}
	for _, ss := range e.srv.Sessions("runtimes/rt-t4demo7k2p") {
		if e.srv.RunningCode(ss.Name) > 0 {
			if code, _, errs := e.run("session", "close", "--yes", ss.Name); code != 0 {
				t.Errorf("session close %s: exit %d: %s", ss.Name, code, errs)
			}
		}
	}
	<-done
}

// A proxy 404 for the resources with a token the proxy takes for the
// kernels means "not offered": never renewed, not asked again for ten
// minutes, so --watch never becomes a renewal loop.
func TestTopPersistent404RenewsOnce(t *testing.T) {
	e := topEnv(t, colabfake.Options{})
	e.srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, PathPrefix: "api/colab/resources", Status: 404, Times: -1})
	var out, errb kittest.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- runStreamsContext(ctx, append([]string{"top", "rt-t4demo7k2p", "--watch=1s"}, e.flags...),
			&kit.Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	}()
	for deadline := time.Now().Add(60 * time.Second); strings.Count(out.String(), "rt-t4demo7k2p") < 3; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("fewer than 3 rounds in 60 s: %q %q", out.String(), errb.String())
		}
	}
	cancel()
	<-done
	if n := e.srv.CallCount("get_runtime"); n != 0 {
		t.Errorf("get_runtime called %d times in 3 rounds, want 0", n)
	}
	if strings.Count(out.String(), "resources not offered by this runtime") < 3 {
		t.Errorf("want every round to say the resources are not offered:\n%s", out.String())
	}
}
