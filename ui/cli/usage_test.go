package cli

import (
	"net"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/ui/cli/kit"
)

// Mistakes on the command line get one clear line and
// the right exit code.
func TestCommandLineMistakes(t *testing.T) {
	isolate(t)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string
		not  string
	}{
		{"did you mean", []string{"stauts"}, kit.ExitUsage, []string{`unknown command "stauts"`, "did you mean status?"}, ""},
		{"did you mean, before a verb's flag", []string{"stauts", "--json"}, kit.ExitUsage, []string{`unknown command "stauts"`, "did you mean status?"}, "unknown flag"},
		{"did you mean for a prefix", []string{"emu"}, kit.ExitUsage, []string{"did you mean emulator?"}, ""},
		{"completion with an unknown shell", []string{"completion", "tcsh"}, kit.ExitUsage, []string{`unknown shell "tcsh"`, "bash", "zsh", "fish"}, ""},
		{"busy emulator port", []string{"emulator", "--addr", busy.Addr().String()}, kit.ExitFailure,
			[]string{"--addr " + busy.Addr().String(), "port is busy", "--addr 127.0.0.1:0"}, "colabfake"},
		{"bad emulator address", []string{"emulator", "--addr", "nonsense"}, kit.ExitUsage, []string{"--addr nonsense"}, "colabfake"},
		{"endpoint without a scheme", []string{"status", "--endpoint", "colaboratory.googleapis.com/mcp"}, kit.ExitUsage,
			[]string{"did you mean https://colaboratory.googleapis.com/mcp?"}, ""},
		// Field trial: host:port forms got no hint (url.Parse reads
		// "localhost:" as a scheme); a loopback host is offered http://.
		{"loopback endpoint without a scheme", []string{"status", "--endpoint", "127.0.0.1:18931/mcp"}, kit.ExitUsage,
			[]string{"did you mean http://127.0.0.1:18931/mcp?"}, ""},
		{"localhost endpoint without a scheme", []string{"status", "--endpoint", "localhost:18931/mcp"}, kit.ExitUsage,
			[]string{"did you mean http://localhost:18931/mcp?"}, ""},
		{"remote endpoint with a port, without a scheme", []string{"status", "--endpoint", "example.com:8443/mcp"}, kit.ExitUsage,
			[]string{"did you mean https://example.com:8443/mcp?"}, ""},
		{"--demo with --endpoint", []string{"status", "--demo", "--endpoint", "http://127.0.0.1:1/mcp"}, kit.ExitUsage,
			[]string{"--demo", "--endpoint does not apply"}, ""},
		{"--demo with an unknown --profile", []string{"status", "--demo", "--profile", "nope"}, kit.ExitUsage,
			[]string{`--profile "nope" is not defined`}, ""},
		// A negative duration is refused on every flag that takes one, before anything runs.
		{"negative create --timeout", []string{"create", "--demo", "--spec", "CPU", "--timeout", "-1s"}, kit.ExitUsage,
			[]string{"--timeout", "-1s", "must not be negative"}, "requestId"},
		{"negative exec --timeout", []string{"exec", "--demo", "rt-t4", "-c", "1", "--timeout", "-1s"}, kit.ExitUsage,
			[]string{"--timeout", "must not be negative"}, ""},
		{"negative --min-valid", []string{"token", "--demo", "rt-t4", "--min-valid", "-5m"}, kit.ExitUsage,
			[]string{"--min-valid", "must not be negative"}, ""},
		{"negative --renew-lead", []string{"--demo", "--renew-lead", "-1m"}, kit.ExitUsage,
			[]string{"--renew-lead", "must not be negative"}, "terminal"},
		{"negative emulator --latency", []string{"emulator", "--addr", "127.0.0.1:0", "--latency", "-1s"}, kit.ExitUsage,
			[]string{"--latency", "must not be negative"}, ""},
		{"negative emulator --create-delay", []string{"emulator", "--addr", "127.0.0.1:0", "--create-delay", "-1s"}, kit.ExitUsage,
			[]string{"--create-delay", "must not be negative"}, ""},
		{"zero emulator --token-ttl", []string{"emulator", "--addr", "127.0.0.1:0", "--token-ttl", "0"}, kit.ExitUsage,
			[]string{"--token-ttl", "must be positive"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := runCLI(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.code, errs)
			}
			oneLineError(t, errs, tc.want...)
			if tc.not != "" && strings.Contains(errs, tc.not) {
				t.Errorf("stderr %q names %q", errs, tc.not)
			}
		})
	}
	// The built-in demo profile named twice is fine.
	if code, _, errs := runCLI(t, "status", "--demo", "--profile", "demo"); code != 0 {
		t.Fatalf("--demo --profile demo: exit %d %q", code, errs)
	}
}

// oneLineError fails unless stderr is one "colabdash: …" line holding
// every want.
func oneLineError(t *testing.T, stderr string, want ...string) {
	t.Helper()
	if strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.HasPrefix(stderr, "colabdash: ") {
		t.Errorf("stderr is not one line: %q", stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr %q lacks %q", stderr, w)
		}
	}
}
