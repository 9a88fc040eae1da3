package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/secrettest"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/ops"
)

// formsJq prints every string and key of the document, also upper- and
// lower-cased, base64- and URI-encoded, JSON-quoted and cut at both
// ends: the ways a filter could turn a secret into text the redactor
// would not recognise if it redacted only the output.
const formsJq = `[(.. | strings), (.. | objects | keys[]) | ., ascii_upcase, ascii_downcase, @base64, @uri, @json, .[3:], .[:-3]]`

// checkSecretForms fails t when any secret reaches text in a form the
// redactor knows: whole or in part (secrettest.Piece bytes), in any
// letter case, URL-encoded, JSON-escaped or base64-encoded (api.Forms).
func checkSecretForms(t *testing.T, what, text string, secrets ...string) {
	t.Helper()
	low := strings.ToLower(text)
	var forms []string
	for _, sec := range secrets {
		for _, f := range api.Forms(sec) {
			if len(f) >= secrettest.Piece && !slices.Contains(forms, f) {
				forms = append(forms, f)
			}
		}
	}
	for _, f := range forms {
		if !secrettest.Check(t, what+" (the form "+f+")", text, f) {
			return // one report is enough
		}
		if i := strings.Index(low, strings.ToLower(f)); i >= 0 {
			t.Errorf("%s shows the secret form %q in other letter case: %q", what, f, text[i:i+len(f)])
			return
		}
	}
}

// leafCommands are the paths of the commands a user runs ("session
// close"), and whether each takes --json.
func leafCommands() map[string]bool {
	var g kit.Globals
	root := newRootCommand(&g, &kit.Streams{In: strings.NewReader(""), Out: &strings.Builder{}, Err: &strings.Builder{}})
	out := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" {
				continue
			}
			if sub.HasSubCommands() {
				walk(sub)
				continue
			}
			out[strings.TrimPrefix(sub.CommandPath(), "colabdash ")] = sub.Flags().Lookup("json") != nil
		}
	}
	walk(root)
	return out
}

// Every verb, in every format it has (text, --json, --jq), with the
// secrets the process knows (the runtime's proxy token, the OAuth access
// token) in the server's text: no form of either reaches stdout, stderr,
// the --debug log or a file in the state directory. Each verb runs its
// success path with the secrets in the data it shows (top's resources,
// ls's names, exec's output) or, where the data holds no server text, its
// failure path with the server's error quoting them. The --jq filter
// re-encodes every string, so a document must be redacted before the
// filter sees it.
func TestEveryVerbEveryFormatRedacted(t *testing.T) {
	// create re-sends after INTERNAL: its waits are not what is tested.
	old := ops.Sleep
	ops.Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	t.Cleanup(func() { ops.Sleep = old })
	e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedEmpty})
	state := filepath.Join(e.home, "state")
	ptok := secrettest.Token("rt-red")
	// An access token with no word in it (verbTestToken holds
	// "AccessToken", which config prints as a key).
	// Its own hex only: the emulator's proxy tokens start "SECRET-" and a
	// random hex digit, so a shared "SECRET-" prefix would match one of
	// them by chance (one time in 16) where token prints it on purpose.
	oauth := "ya29." + strings.TrimPrefix(secrettest.Token("oauth"), "SECRET-")
	e.flags[len(e.flags)-1] = writeFile(t, filepath.Join(e.home, "token.txt"), oauth+"\n")
	if _, err := e.srv.AddRuntime(api.Runtime{Name: "runtimes/rt-red",
		RuntimeSpec:    api.RuntimeSpecKey{Variant: api.VariantCPU, Accelerator: api.AcceleratorNone, Shape: api.ShapeStandard},
		ConnectionInfo: &api.ConnectionInfo{Token: ptok}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.srv.AddNotebookSession("runtimes/rt-red", "notebook-red"); err != nil {
		t.Fatal(err)
	}
	cur := func() string {
		for _, rt := range e.srv.Runtimes() {
			if rt.Name == "runtimes/rt-red" && rt.ConnectionInfo != nil {
				return rt.ConnectionInfo.Token
			}
		}
		return ptok
	}
	dir := t.TempDir()
	local := writeFile(t, filepath.Join(dir, "up.txt"), "x")
	script := writeFile(t, filepath.Join(dir, "s.py"), "print(1)\n")
	// What the server says: the secrets the process knows, also in a
	// JSON string of its own.
	said := func() string { return "token " + cur() + " and Bearer " + oauth }
	toolEcho := func(tools ...string) func() {
		return func() {
			for _, tool := range tools {
				e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: tool, Times: -1,
					Text: colabfake.GoogleErrorText(api.Internal, "backend failed: "+said(), "", 0)})
			}
		}
	}
	// specs and create list no runtime, and a verb whose listing fails
	// never sees one, so they never learn rt-red's proxy token: the
	// server's text quotes the access token only.
	oauthEcho := func(tool string) func() {
		return func() {
			e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: tool, Times: -1,
				Text: colabfake.GoogleErrorText(api.Internal, "backend failed: Bearer "+oauth+" "+oauth, "", 0)})
		}
	}
	// A status the transfer does not retry: the path is the same, without
	// a backoff's seconds.
	proxyEcho := func(method string, status int) func() {
		return func() {
			e.srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Method: method, PathPrefix: "api/contents", Status: status,
				ContentType: "application/json", Body: `{"message":"internal error: ` + said() + `","reason":null}`, Times: -1})
		}
	}
	resources := func() {
		e.srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Method: http.MethodGet, PathPrefix: "api/colab/resources", Status: 200,
			ContentType: "application/json", Times: -1,
			Body: `{"memory":{"totalBytes":1000,"freeBytes":500},"disks":[{"filesystem":{"label":"` + cur() + `","totalBytes":100,"usedBytes":50}}],` +
				`"gpus":[{"name":"Bearer ` + oauth + `","memoryUsedBytes":1,"memoryTotalBytes":2,"gpuUtilization":0.5,"memoryUtilization":0.5,"everUsed":true}]}`})
	}
	listing := func() {
		name := "leak-" + oauth + "-" + cur()
		e.srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Method: http.MethodGet, PathPrefix: "api/contents", Status: 200, ContentType: "application/json", Times: -1,
			Body: `{"name":"content","path":"content","type":"directory","size":null,"last_modified":"2026-11-29T18:00:00.000000Z","created":"2026-11-29T18:00:00.000000Z","writable":true,"mimetype":null,"format":"json","content":[` +
				`{"name":"` + name + `","path":"content/` + name + `","type":"file","size":1,"last_modified":"2026-11-29T18:00:00.000000Z","created":"2026-11-29T18:00:00.000000Z","writable":true,"mimetype":null,"format":null,"content":null}]}`})
	}
	execOutput := func() {
		b, _ := json.Marshal(map[string]any{"session": "runtimes/rt-red/sessions/notebook-red", "executionId": "x",
			"stdout": "out " + said() + "\n", "stderr": "err " + said() + "\n", "result": "'" + said() + "'"})
		e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultOutput, Tool: "execute_code", Times: -1, Output: b})
	}
	type row struct {
		args   []string
		inject func()
		want   string // in the text format's stdout+stderr: the path was taken
		shows  bool   // the verb prints the proxy token on purpose (token)
	}
	rows := map[string]row{
		"top":           {[]string{"top", "rt-red"}, resources, "rt-red", false},
		"ls":            {[]string{"ls", "rt-red:/content"}, listing, "leak-", false},
		"cp":            {[]string{"cp", local, "rt-red:/content/"}, proxyEcho(http.MethodPut, http.StatusBadRequest), "internal error", false},
		"rm":            {[]string{"rm", "rt-red:/content/up.txt"}, proxyEcho("", http.StatusInternalServerError), "internal error", false},
		"exec":          {[]string{"exec", "rt-red/notebook-red", "-c", "1"}, execOutput, "out ", false},
		"run":           {[]string{"run", "--runtime", "rt-red", script}, execOutput, "out ", false},
		"status":        {[]string{"status"}, toolEcho("list_sessions"), "backend failed", false},
		"specs":         {[]string{"specs"}, oauthEcho("list_runtime_specs"), "backend failed", false},
		"create":        {[]string{"create", "--spec", "CPU"}, oauthEcho("create_runtime"), "backend failed", false},
		"delete":        {[]string{"delete", "rt-red", "--yes"}, toolEcho("delete_runtime"), "backend failed", false},
		"sessions":      {[]string{"sessions", "rt-red"}, toolEcho("list_sessions"), "backend failed", false},
		"session open":  {[]string{"session", "open", "rt-red"}, toolEcho("create_session"), "backend failed", false},
		"session close": {[]string{"session", "close", "rt-red/notebook-red", "--yes", "--force"}, toolEcho("delete_session"), "backend failed", false},
		"url":           {[]string{"url", "rt-red"}, oauthEcho("list_runtimes"), "backend failed", false},
		"token":         {[]string{"token", "rt-red"}, nil, "", true},
		"forward":       {[]string{"forward", "rt-red", "--port", "0"}, oauthEcho("list_runtimes"), "backend failed", false},
		"shell":         {[]string{"shell", "rt-red"}, nil, "terminal", false},
		"config":        {[]string{"config"}, nil, "", false},
		"version":       {[]string{"version"}, nil, "colabdash", false},
		"doctor":        {[]string{"doctor"}, proxyEcho("", http.StatusInternalServerError), "internal error", false},
	}
	// Not run here: the emulator serves until stopped (it talks to no
	// Colab), and completion prints shell code.
	skip := []string{"emulator", "completion bash", "completion zsh", "completion fish", "completion powershell"}
	for verb, hasJSON := range leafCommands() {
		r, ok := rows[verb]
		if !ok && !slices.Contains(skip, verb) {
			t.Errorf("verb %q has no row in this table", verb)
			continue
		}
		if !ok {
			continue
		}
		formats := [][]string{nil}
		if hasJSON {
			formats = append(formats, []string{"--json"}, []string{"--jq", formsJq})
		}
		for _, format := range formats {
			name := strings.Join(append([]string{verb}, format...), " ")
			t.Run(name, func(t *testing.T) {
				e.srv.ClearFaults()
				e.srv.ClearProxyFaults()
				defer e.srv.ClearFaults()
				defer e.srv.ClearProxyFaults()
				before := cur()
				if r.inject != nil {
					r.inject()
				}
				logFile := filepath.Join(t.TempDir(), "colabdash.log")
				args := append(append(slices.Clone(r.args), format...), "--log-file", logFile, "--debug")
				code, out, errs := e.run(args...)
				if format == nil && !strings.Contains(out+errs, r.want) {
					t.Fatalf("%v: exit %d, output does not show %q (the path was not taken):\nstdout %q\nstderr %q", args, code, r.want, out, errs)
				}
				secrets := []string{oauth, strings.TrimPrefix(oauth, "ya29."), before, cur()}
				if r.shows {
					if !strings.Contains(out, cur()) {
						t.Errorf("%s does not print the proxy token it is for: the scan would not notice it", name)
					}
					out = strings.ReplaceAll(out, cur(), "")
					secrets = secrets[:2] // its own output may name it: scan for the OAuth token
				}
				checkSecretForms(t, name+" stdout", out, secrets...)
				checkSecretForms(t, name+" stderr", errs, secrets...)
				logged, _ := os.ReadFile(logFile)
				checkSecretForms(t, name+" --debug log", string(logged), secrets...)
				_ = filepath.WalkDir(state, func(p string, d os.DirEntry, err error) error {
					if err == nil && d.Type().IsRegular() {
						b, _ := os.ReadFile(p)
						checkSecretForms(t, name+" state file "+p, string(b), secrets...)
					}
					return nil
				})
			})
		}
	}
}
