package cli

// `colabdash emulator`: the endpoint and banner it prints, and its flags
// for the monitor's routes (what `colabdash top` then reads through the
// emulator's runtime proxy).

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/cli/top"
)

// startEmulatorCmd runs `colabdash emulator --addr 127.0.0.1:0 ARGS…`
// in-process until the test ends and returns the global flags that reach
// it (endpoint and a bearer token file).
func startEmulatorCmd(t *testing.T, args ...string) []string {
	t.Helper()
	home := isolate(t)
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	pr, pw := io.Pipe()
	cmd := emulatorCmd(pw)
	cmd.SetArgs(append([]string{"--addr", "127.0.0.1:0"}, args...))
	cmd.SetErr(io.Discard)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = cmd.ExecuteContext(ctx); pw.Close() }()
	t.Cleanup(func() { cancel(); <-done })
	sc := bufio.NewScanner(pr)
	if !sc.Scan() {
		t.Fatal("the emulator printed no endpoint")
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }() // the banner
	tok := writeFile(t, filepath.Join(home, "token.txt"), verbTestToken+"\n")
	return []string{"--endpoint", strings.TrimSpace(sc.Text()), "--access-token-file", tok}
}

// topJSON runs `colabdash top RUNTIME… --json` with flags and returns its
// exit code and report by runtime id.
func topJSON(t *testing.T, flags []string, args ...string) (int, map[string]top.RuntimeReport) {
	t.Helper()
	code, out, errs := runCLI(t, append(append(append([]string{"top"}, args...), "--json"), flags...)...)
	var rep top.Report
	mustJSON(t, out, &rep)
	by := map[string]top.RuntimeReport{}
	for _, r := range rep.Runtimes {
		by[strings.TrimPrefix(string(r.Name), "runtimes/")] = r
	}
	if len(by) == 0 {
		t.Fatalf("top: exit %d, no runtimes: %s %s", code, out, errs)
	}
	return code, by
}

// --stuck-kernel adds the runtime whose kernel never connected;
// --resources-fault 500 makes every resources reply a 500 (the kernels
// are still read); --proxy-latency delays each of top's two requests.
func TestEmulatorMonitorFlags(t *testing.T) {
	const latency = 150 * time.Millisecond
	flags := startEmulatorCmd(t, "--stuck-kernel", "--resources-fault", "500", "--proxy-latency", latency.String())
	start := time.Now()
	code, by := topJSON(t, flags, colabfake.StuckKernelRuntime)
	if took := time.Since(start); took < 2*latency {
		t.Errorf("top of one runtime took %v behind --proxy-latency %v, want at least two round trips", took, latency)
	}
	stuck := by[colabfake.StuckKernelRuntime]
	if code != kit.ExitAPI || stuck.ResourcesStatus != "unavailable" || !strings.Contains(stuck.ResourcesError, "HTTP 500") {
		t.Errorf("--resources-fault 500: exit %d, %+v", code, stuck)
	}
	if stuck.Kernels == nil || stuck.Activity.State != "starting" && stuck.Activity.State != "never connected" {
		t.Errorf("--stuck-kernel: the kernel reads %+v %+v", stuck.Kernels, stuck.Activity)
	}
}

// --stock-jupyter answers the resources route with a stock server's HTML
// 404: "not offered", not a failure; --resources-fault partial answers a
// body without figures, read as one empty disk.
func TestEmulatorStockAndPartialFlags(t *testing.T) {
	code, by := topJSON(t, startEmulatorCmd(t, "--stock-jupyter"), "rt-t4demo7k2p")
	if r := by["rt-t4demo7k2p"]; code != 0 || r.ResourcesStatus != "notOffered" || r.Resources != nil {
		t.Errorf("--stock-jupyter: exit %d, %+v", code, r)
	}
	code, by = topJSON(t, startEmulatorCmd(t, "--resources-fault", "partial"), "rt-t4demo7k2p")
	if r := by["rt-t4demo7k2p"]; code != 0 || r.Resources == nil || r.Resources.Memory != nil || len(r.Resources.Disks) != 1 ||
		r.Resources.Disks[0].TotalBytes != 0 || len(r.Resources.GPUs) != 0 {
		t.Errorf("--resources-fault partial: exit %d, %+v", code, r.Resources)
	}
	code, by = topJSON(t, startEmulatorCmd(t, "--resources-fault", "html-404"), "rt-cpudemo4qx")
	if r := by["rt-cpudemo4qx"]; code != 0 || r.ResourcesStatus != "notOffered" {
		t.Errorf("--resources-fault html-404: exit %d, %+v", code, r)
	}
	if code, _, errs := runCLI(t, "emulator", "--resources-fault", "sometimes"); code != kit.ExitUsage || !strings.Contains(errs, "html-404, 500, slow") {
		t.Errorf("an unknown --resources-fault: exit %d %q", code, errs)
	}
}

// --resources-from-host reports this machine's RAM (MemTotal of
// /proc/meminfo), without the XSSI guard under --resources-no-xssi.
func TestEmulatorResourcesFromHostFlag(t *testing.T) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		t.Skip("no /proc/meminfo here")
	}
	var kb int64
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "MemTotal:" {
			kb, _ = strconv.ParseInt(f[1], 10, 64)
		}
	}
	code, by := topJSON(t, startEmulatorCmd(t, "--resources-from-host", "--resources-no-xssi"), "rt-cpudemo4qx")
	r := by["rt-cpudemo4qx"]
	if code != 0 || r.Resources == nil || r.Resources.Memory == nil || r.Resources.Memory.TotalBytes != kb*1024 {
		t.Errorf("--resources-from-host: exit %d, %+v, want MemTotal %d kB", code, r.Resources, kb)
	}
}

// emulatorCLI is the set-up of a test that runs the real binary as a
// script would: it builds the binary (skipped under -short), isolates
// HOME with the state directory at HOME/state, starts `colabdash
// emulator` with args (see startEmulatorBinary) and writes an access
// token file in HOME. It returns the binary, the emulator's MCP endpoint
// and the token file.
func emulatorCLI(t *testing.T, args ...string) (bin, endpoint, tokenFile string) {
	t.Helper()
	bin = needBinary(t)
	home := isolate(t)
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	endpoint = startEmulatorBinary(t, bin, args...)
	return bin, endpoint, writeFile(t, filepath.Join(home, "token"), "ya29.emulator-cli-token\n")
}

// startEmulatorBinary runs bin's `emulator --addr 127.0.0.1:0 --seed
// empty` with args until the test ends and returns the endpoint it prints
// first; the rest of its output is read and dropped.
func startEmulatorBinary(t *testing.T, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	emu := exec.CommandContext(ctx, bin, append([]string{"emulator", "--addr", "127.0.0.1:0", "--seed", "empty"}, args...)...)
	stdout, _ := emu.StdoutPipe()
	if err := emu.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = emu.Wait() })
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() {
		t.Fatal("the emulator printed nothing")
	}
	endpoint := strings.TrimSpace(sc.Text())
	go func() {
		for sc.Scan() { // drain
		}
	}()
	return endpoint
}

func TestEmulatorCommandServesStatus(t *testing.T) {
	bin, endpoint, tokenFile := emulatorCLI(t, "--runtimes", "5")
	if !strings.HasPrefix(endpoint, "http://127.0.0.1:") || !strings.HasSuffix(endpoint, "/mcp") {
		t.Fatalf("first line is not the endpoint: %q", endpoint)
	}
	out, err := exec.Command(bin, "status", "--endpoint", endpoint, "--access-token-file", tokenFile).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Colab Free · 5 runtimes") {
		t.Fatalf("status against the emulator: %v\n%s", err, out)
	}
}

// Under --no-auth the banner says that no token is needed
// (and without it, that any non-empty token is accepted).
func TestEmulatorBannerNoAuth(t *testing.T) {
	bin := needBinary(t)
	isolate(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--no-auth"}, "no token is needed"},
		{nil, "any non-empty bearer token is accepted"},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		emu := exec.CommandContext(ctx, bin, append([]string{"emulator", "--addr", "127.0.0.1:0", "--seed", "empty"}, c.args...)...)
		stdout, _ := emu.StdoutPipe()
		if err := emu.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stdout)
		var lines []string
		for len(lines) < 2 && sc.Scan() {
			lines = append(lines, sc.Text())
		}
		cancel()
		emu.Wait()
		if len(lines) < 2 || !strings.Contains(lines[1], c.want) {
			t.Errorf("emulator %v banner = %q, want it to say %q", c.args, lines, c.want)
		}
		if c.args != nil && len(lines) == 2 && strings.Contains(lines[1], "non-empty bearer token") {
			t.Errorf("--no-auth banner still asks for a token: %q", lines[1])
		}
	}
}
