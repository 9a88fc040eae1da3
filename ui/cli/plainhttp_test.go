package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// The OAuth bearer token goes to the endpoint and the upstream's Jupyter
// token to --jupyter-upstream: plain http to a host that is not loopback
// is refused wherever the URL comes from (flag or profile), with one line
// saying why and the https form, before anything is sent. (isolate leaves
// no credentials, so without the rule these would fail on credentials,
// never reaching a network.)
func TestPlainHTTPEndpointRefused(t *testing.T) {
	home := isolate(t)
	cfg := writeFile(t, filepath.Join(home, "plain.yaml"),
		"profile: work\nprofiles:\n  work:\n    endpoint: http://colab.example.com/mcp\n")
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"--endpoint", []string{"status", "--endpoint", "http://colab.example.com/mcp"},
			[]string{"--endpoint http://colab.example.com/mcp", "unencrypted", "use https://colab.example.com/mcp", "loopback"}},
		{"--endpoint on a verb", []string{"ls", "rt-abc", "--endpoint", "http://10.1.2.3:8089/mcp"},
			[]string{"--endpoint http://10.1.2.3:8089/mcp", "unencrypted", "use https://10.1.2.3:8089/mcp"}},
		{"profile endpoint", []string{"status", "--config", cfg},
			[]string{"plain.yaml:4", "profiles.work.endpoint", "unencrypted", "use https://colab.example.com/mcp"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, tc.args...)
			if code != kit.ExitUsage || out != "" {
				t.Errorf("exit %d, stdout %q, want exit %d and nothing on stdout (stderr %q)", code, out, kit.ExitUsage, errs)
			}
			oneLineError(t, errs, tc.want...)
		})
	}

	// The upstream's token is in its URL: the refusal does not repeat it.
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errs := runCLI(t, "emulator", "--addr", "127.0.0.1:0", "--jupyter-upstream", "http://10.1.2.3:8888/?token=UPSTREAM-SECRET")
		done <- result{code, out, errs}
	}()
	select {
	case r := <-done:
		if r.code != kit.ExitUsage || r.out != "" {
			t.Errorf("--jupyter-upstream over plain http: exit %d, stdout %q (stderr %q)", r.code, r.out, r.err)
		}
		oneLineError(t, r.err, "--jupyter-upstream http://10.1.2.3:8888/?…", "unencrypted", "https://10.1.2.3:8888/")
		if strings.Contains(r.err, "UPSTREAM-SECRET") {
			t.Errorf("the refusal repeats the upstream's token: %q", r.err)
		}
	case <-time.After(waitTimeout):
		t.Fatal("the emulator started with a plain-http --jupyter-upstream instead of refusing it")
	}
}

// Loopback http stays accepted in every spelling: the emulator, --demo
// and tests use it.
func TestLoopbackHTTPEndpointAccepted(t *testing.T) {
	e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedDemo})
	endpoint := e.flags[1]
	for _, ep := range []string{endpoint, strings.Replace(endpoint, "127.0.0.1", "localhost", 1)} {
		flags := []string{"--endpoint", ep, e.flags[2], e.flags[3]}
		var out, errb strings.Builder
		if code := run(append([]string{"status"}, flags...), &out, &errb); code != 0 || !strings.Contains(out.String(), "rt-t4demo7k2p") {
			t.Errorf("status --endpoint %s: exit %d\n%s%s", ep, code, out.String(), errb.String())
		}
	}
	if code, _, errs := runCLI(t, "status", "--demo"); code != 0 {
		t.Errorf("--demo: exit %d %q", code, errs)
	}
}
