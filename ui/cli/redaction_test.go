package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/colabfaketest"
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

// addRedRuntime adds the CPU runtime rt-red, whose proxy token is ptok,
// with one notebook session, to e's emulator.
func addRedRuntime(t *testing.T, e *verbEnv, ptok string) {
	t.Helper()
	if _, err := e.srv.AddRuntime(api.Runtime{Name: "runtimes/rt-red",
		RuntimeSpec:    api.RuntimeSpecKey{Variant: api.VariantCPU, Accelerator: api.AcceleratorNone, Shape: api.ShapeStandard},
		ConnectionInfo: &api.ConnectionInfo{Token: ptok}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.srv.AddNotebookSession("runtimes/rt-red", "notebook-red"); err != nil {
		t.Fatal(err)
	}
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
	e := emptyVerbEnv(t)
	state := filepath.Join(e.home, "state")
	ptok := secrettest.Token("rt-red")
	// An access token with no word in it (verbTestToken holds
	// "AccessToken", which config prints as a key).
	// Its own hex only: the emulator's proxy tokens start "SECRET-" and a
	// random hex digit, so a shared "SECRET-" prefix would match one of
	// them by chance (one time in 16) where token prints it on purpose.
	oauth := "ya29." + strings.TrimPrefix(secrettest.Token("oauth"), "SECRET-")
	e.flags[len(e.flags)-1] = writeFile(t, filepath.Join(e.home, "token.txt"), oauth+"\n")
	addRedRuntime(t, e, ptok)
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
	// run's script prints them: its job's log is what run shows.
	runOutput := func() {
		writeFile(t, script, "import sys\nprint(\"out "+said()+"\")\nprint(\"err "+said()+"\", file=sys.stderr)\n")
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
		"run":           {[]string{"run", "--runtime", "rt-red", script}, runOutput, "out ", false},
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
		"jobs":          {[]string{"jobs", "rt-red"}, proxyEcho("", http.StatusInternalServerError), "internal error", false},
		"logs":          {[]string{"logs", "rt-red/train-1"}, proxyEcho("", http.StatusInternalServerError), "internal error", false},
		"wait":          {[]string{"wait", "rt-red/train-1"}, proxyEcho("", http.StatusInternalServerError), "internal error", false},
		"stop":          {[]string{"stop", "rt-red/train-1"}, proxyEcho("", http.StatusInternalServerError), "internal error", false},
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

// Every output path is redacted. One table runs each
// path with a secret the process knows (the runtime's proxy token, the
// OAuth access token) in the server's text and scans everything written.
func TestEveryOutputPathRedacted(t *testing.T) {
	e := emptyVerbEnv(t)
	ptok := secrettest.Token("rt-red")
	const oauth = verbTestToken
	addRedRuntime(t, e, ptok)
	secrets := []string{oauth, strings.TrimPrefix(oauth, "ya29.")}
	dir := t.TempDir()
	leakName := "leak-" + oauth + ".txt" // names carry the access token: it never changes
	local := writeFile(t, filepath.Join(dir, leakName), "x")
	// A directory to upload holding a FIFO named with the secret: cp
	// warns that it skipped it.
	updir := filepath.Join(dir, "up")
	_ = os.Mkdir(updir, 0o755)
	writeFile(t, filepath.Join(updir, "ok.txt"), "ok")
	if err := syscall.Mkfifo(filepath.Join(updir, "fifo-"+oauth), 0o600); err != nil {
		t.Fatal(err)
	}
	session := "rt-red/notebook-red"
	// The emulator renews the proxy token now and then: every server text
	// carries the current one (the one this run of colabdash learns).
	cur := func() string {
		for _, rt := range e.srv.Runtimes() {
			if rt.Name == "runtimes/rt-red" && rt.ConnectionInfo != nil {
				return rt.ConnectionInfo.Token
			}
		}
		return "" // deleted
	}
	echo := func() string {
		return `{"message":"internal error for request with token ` + cur() + ` and Bearer ` + oauth + `","reason":null}`
	}
	listing := `{"name":"content","path":"content","type":"directory","size":null,"last_modified":"2026-11-29T18:00:00.000000Z","created":"2026-11-29T18:00:00.000000Z","writable":true,"mimetype":null,"format":"json","content":[` +
		`{"name":"` + leakName + `","path":"content/` + leakName + `","type":"file","size":1,"last_modified":"2026-11-29T18:00:00.000000Z","created":"2026-11-29T18:00:00.000000Z","writable":true,"mimetype":null,"format":null,"content":null}]}`
	execOut := func(res map[string]any) json.RawMessage {
		res["session"] = "runtimes/rt-red/sessions/notebook-red"
		res["executionId"] = "x"
		b, _ := json.Marshal(res)
		return b
	}
	for _, tc := range []struct {
		name   string
		inject func()
		tm     term
		args   []string
		want   string // in stdout+stderr: the path was taken
	}{
		{"jupyter error body", func() {
			e.srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Method: http.MethodGet, PathPrefix: "api/contents", Status: 500, ContentType: "application/json", Body: echo(), Times: -1})
		}, term{}, []string{"ls", "rt-red:/content"}, "internal error"},
		{"ls --json failure document", func() {
			e.srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Method: http.MethodGet, PathPrefix: "api/contents", Status: 500, ContentType: "application/json", Body: echo(), Times: -1})
		}, term{}, []string{"ls", "rt-red:/content", "--json"}, `"ok": false`},
		{"ls stdout lines", func() {
			e.srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Method: http.MethodGet, PathPrefix: "api/contents", Status: 200, ContentType: "application/json", Body: listing, Times: -1})
		}, term{}, []string{"ls", "rt-red:/content"}, "leak-"},
		{"cp line on a terminal", nil, term{errTTY: true}, []string{"cp", local, "rt-red:/content/"}, "leak-"},
		{"cp warning", nil, term{}, []string{"cp", "-r", updir, "rt-red:/content/up"}, "warning"},
		{"cp error line", func() {
			e.srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Method: http.MethodPut, PathPrefix: "api/contents", Status: 500, ContentType: "application/json", Body: echo(), Times: -1})
		}, term{}, []string{"cp", filepath.Join(updir, "ok.txt"), "rt-red:/content/"}, "internal error"},
		{"rm error line", func() {
			e.srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Method: http.MethodDelete, PathPrefix: "api/contents", Status: 500, ContentType: "application/json", Body: echo(), Times: -1})
		}, term{}, []string{"rm", "rt-red:/content/up/ok.txt"}, "internal error"},
		{"exec traceback", func() {
			e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultOutput, Tool: "execute_code", Times: -1, Output: execOut(map[string]any{
				"executionError": map[string]any{"name": "ValueError", "value": cur(), "traceback": []string{"Traceback: token " + cur(), "ValueError: " + cur()}}})})
		}, term{}, []string{"exec", session, "-c", "1"}, "Traceback"},
		{"exec output on a terminal", func() {
			e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultOutput, Tool: "execute_code", Times: -1, Output: execOut(map[string]any{
				"stdout": "out " + cur() + "\n", "stderr": "err " + cur() + "\n", "result": "'" + cur() + "'"})})
		}, term{outTTY: true, errTTY: true}, []string{"exec", session, "-c", "1"}, "out "},
		{"delete note", func() {
			e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: "delete_runtime", Times: -1,
				Text: colabfake.GoogleErrorText(api.Internal, "backend failed for token "+cur()+" Bearer "+oauth, "", 0)})
		}, term{}, []string{"delete", "rt-red", "--yes"}, "backend failed"},
		// Texts no inner layer redacts (a name the user gave, echoed in
		// the failure): the outer layers' own redaction is what holds.
		{"error line naming a local path", nil, term{}, []string{"cp", filepath.Join(dir, "missing-"+oauth), "rt-red:/content/"}, "missing-"},
		{"ls --json failure naming the path", nil, term{}, []string{"ls", "rt-red:/content/missing-" + oauth, "--json"}, `"ok": false`},
		{"delete note naming a runtime", nil, term{}, []string{"delete", "rt-" + oauth, "--yes"}, "rt-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.srv.ClearFaults()
			e.srv.ClearProxyFaults()
			before := cur()
			if tc.inject != nil {
				tc.inject()
			}
			code, out, errs := e.runTerm(tc.tm, tc.args...)
			e.srv.ClearFaults()
			e.srv.ClearProxyFaults()
			if !strings.Contains(out+errs, tc.want) {
				t.Fatalf("%v: exit %d, output does not show %q (the path was not taken):\nstdout %q\nstderr %q", tc.args, code, tc.want, out, errs)
			}
			secrets := append([]string{}, secrets...)
			for _, tok := range []string{before, cur()} {
				if tok != "" {
					secrets = append(secrets, tok)
				}
			}
			// Of this --json document only "error" is scanned: its "path"
			// is the argument as the user typed it.
			if tc.name == "ls --json failure naming the path" {
				var doc struct{ Error struct{ Message string } }
				mustJSON(t, out, &doc)
				out = doc.Error.Message
			}
			secrettest.Check(t, tc.name+" stdout", out, secrets...)
			secrettest.Check(t, tc.name+" stderr", errs, secrets...)
		})
	}
}

// TestNoSecretInOutput scans everything `colabdash status` writes (table
// and --json, stdout and stderr, the --debug log file, success and
// failure) for the OAuth access
// token it was given and the proxy tokens the server sent, and finds
// no piece of any (secrettest.Piece characters). --show-tokens is the control: there the proxy tokens must appear,
// so the scan can fail.
func TestNoSecretInOutput(t *testing.T) {
	home := isolate(t)
	const oauth = "ya29.OAUTH-SECRET-c0ffee"
	srv, endpoint := colabfaketest.Start(t, colabfake.Options{RuntimeLimit: -1})
	var proxyTokens []string
	for _, id := range []string{"r-one", "r-two", "r-three"} {
		tok := secrettest.Token(id)
		proxyTokens = append(proxyTokens, tok)
		if _, err := srv.AddRuntime(api.Runtime{Name: id, RuntimeSpec: api.RuntimeSpecKey{Variant: api.VariantCPU, Accelerator: api.AcceleratorNone, Shape: api.ShapeStandard},
			ConnectionInfo: &api.ConnectionInfo{Token: tok, ExpireTime: time.Now().Add(time.Hour)}}); err != nil {
			t.Fatal(err)
		}
	}
	tokenFile := filepath.Join(home, "token.txt")
	if err := os.WriteFile(tokenFile, []byte(oauth+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(home, "colabdash.log")
	base := []string{"status", "--endpoint", endpoint, "--access-token-file", tokenFile, "--log-file", logFile, "--debug"}
	secrets := append([]string{oauth, strings.TrimPrefix(oauth, "ya29.")}, proxyTokens...)
	scan := func(what, out string) {
		t.Helper()
		secrettest.Check(t, what, out, secrets...)
	}
	for _, args := range [][]string{nil, {"--json"}} {
		code, out, errs := runCLI(t, append(base, args...)...)
		if code != 0 || !strings.Contains(out, "r-two") {
			t.Fatalf("status %v: exit %d\n%s\n%s", args, code, out, errs)
		}
		scan(strings.Join(append([]string{"status"}, args...), " ")+" stdout", out)
		scan("status stderr", errs)
	}
	// Failures: the server echoes the request's token in an error body
	// (Raw), and a list_sessions error; still nothing printed.
	srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: "list_sessions", Times: -1,
		Text: `{"error":{"code":500,"status":"INTERNAL","message":"backend error","details":[{"token":"` + proxyTokens[0] + `"}]}}`})
	code, out, errs := runCLI(t, append(base, "--json")...)
	scan("status --json with failing list_sessions (exit "+strconv.Itoa(code)+")", out+errs)
	srv.ClearFaults()
	srv.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: "list_runtimes", Status: 401, Times: -1,
		Body: `{"error":{"code":401,"status":"UNAUTHENTICATED","message":"Request had invalid authentication credentials."},"echo":"Bearer ` + oauth + `"}`})
	code, out, errs = runCLI(t, base...)
	if code == 0 {
		t.Errorf("status with a rejected token exited 0")
	}
	scan("status with a rejected token", out+errs)
	srv.ClearFaults()

	// The debug log of all those runs (raw error replies included).
	logged, err := os.ReadFile(logFile)
	if err != nil || !strings.Contains(string(logged), "list_runtimes") {
		t.Fatalf("no debug log to scan (%v):\n%s", err, logged)
	}
	scan("the --debug log file", string(logged))

	// The control: --show-tokens prints them, so the scan above can fail.
	_, out, _ = runCLI(t, append(base, "--json", "--show-tokens")...)
	for _, tok := range proxyTokens {
		if !strings.Contains(out, tok) {
			t.Errorf("--show-tokens does not print %q: the scan would not notice a leak", tok)
		}
	}
	if strings.Contains(out, oauth) {
		t.Errorf("--show-tokens prints the OAuth token")
	}
}

// A secret in an endpoint URL (an API key in the query, a
// password in the user info) is redacted in every output that shows the
// URL: `colabdash config`, a failing verb's stderr, and the log file.
func TestEndpointURLSecretsRedacted(t *testing.T) {
	home := isolate(t)
	const key, password = "AIzaSyB-1a2b3c4d5e6f7g8h9i0jKLMNOPQRS", "Pa55w0rd-Secret"
	tokenFile := filepath.Join(home, "token.txt")
	if err := os.WriteFile(tokenFile, []byte("tok-0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Port 1 on loopback: nothing listens, the call fails at once.
	endpoint := "http://me:" + password + "@127.0.0.1:1/mcp?alt=json&key=" + key
	cfg := filepath.Join(home, ".config", "colabdash", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		t.Fatal(err)
	}
	yaml := "profile: work\nprofiles:\n  work:\n    accessTokenFile: " + tokenFile + "\n    endpoint: \"" + endpoint + "\"\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(home, "colabdash.log")
	for _, args := range [][]string{
		{"config"},
		{"status", "--log-file", logFile, "--debug"},
		{"status", "--endpoint", endpoint, "--access-token-file", tokenFile},
	} {
		trustCLIMu.Lock()
		code, out, errs := runCLI(t, args...)
		trustCLIMu.Unlock()
		for name, text := range map[string]string{"stdout": out, "stderr": errs} {
			if strings.Contains(text, key) || strings.Contains(text, password) {
				t.Errorf("%v (exit %d) %s shows a URL secret:\n%s", args, code, name, text)
			}
		}
		if args[0] == "config" && (code != 0 || !strings.Contains(out, "key=[redacted]") || !strings.Contains(out, "127.0.0.1:1/mcp")) {
			t.Errorf("config: exit %d, the endpoint is not shown redacted:\n%s%s", code, out, errs)
		}
		if args[0] == "status" && code == 0 {
			t.Errorf("%v: exit 0 against a port where nothing listens", args)
		}
	}
	logged, err := os.ReadFile(logFile)
	if err != nil || !strings.Contains(string(logged), "127.0.0.1:1") {
		t.Fatalf("the log does not name the endpoint (%v):\n%s", err, logged)
	}
	if strings.Contains(string(logged), key) || strings.Contains(string(logged), password) {
		t.Errorf("the log file shows a URL secret:\n%s", logged)
	}
}

// The hint about a bad access token reaches stderr whole (the
// redactor read "bearer token" as a token and printed "a bearer
// [redacted] is letters…").
func TestBadTokenHintNotRedacted(t *testing.T) {
	home := isolate(t)
	tokenFile := filepath.Join(home, "token.txt")
	if err := os.WriteFile(tokenFile, []byte("tok\x01en-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	trustCLIMu.Lock()
	code, _, errs := runCLI(t, "status", "--endpoint", "http://127.0.0.1:1/mcp", "--access-token-file", tokenFile)
	trustCLIMu.Unlock()
	if code != kit.ExitCredential || !strings.Contains(errs, "a bearer token is letters, digits and -._~+/ with = at the end") ||
		strings.Contains(errs, "[redacted]") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}
