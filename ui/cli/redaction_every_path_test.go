package cli

// Every output path is redacted. One table runs each
// path with a secret the process knows (the runtime's proxy token, the
// OAuth access token) in the server's text and scans everything written.

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/secrettest"
)

func TestEveryOutputPathRedacted(t *testing.T) {
	e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedEmpty})
	ptok := secrettest.Token("rt-red")
	const oauth = verbTestToken
	if _, err := e.srv.AddRuntime(api.Runtime{Name: "runtimes/rt-red",
		RuntimeSpec:    api.RuntimeSpecKey{Variant: api.VariantCPU, Accelerator: api.AcceleratorNone, Shape: api.ShapeStandard},
		ConnectionInfo: &api.ConnectionInfo{Token: ptok}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.srv.AddNotebookSession("runtimes/rt-red", "notebook-red"); err != nil {
		t.Fatal(err)
	}
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
