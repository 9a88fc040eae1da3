package files

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/secrettest"
	"github.com/colabdash/colabdash/ui/cli/kit/kittest"
)

// The --json failure document of ls, cp and rm is redacted by the verb
// that builds it: a path named with the runtime's proxy token (a secret
// the command learns as it opens the runtime) fails with not found, and
// the server's answer quoted in "error" (and the stderr line) shows none
// of the token. The streams here are not wrapped by the program's
// redacting writer, so what is scanned is each verb's own document.
// ls's "path" is the argument as typed, and not scanned.
func TestJSONFailureDocumentsAreRedacted(t *testing.T) {
	e := kittest.Empty(t)
	if _, err := e.Srv.AddRuntime(api.Runtime{Name: "runtimes/rt-red", ConnectionInfo: &api.ConnectionInfo{Token: secrettest.Token("rt-red")}}); err != nil {
		t.Fatal(err)
	}
	// token is the runtime's proxy token now (the emulator may renew it).
	token := func() string {
		for _, rt := range e.Srv.Runtimes() {
			if rt.Name == "runtimes/rt-red" && rt.ConnectionInfo != nil {
				return rt.ConnectionInfo.Token
			}
		}
		t.Fatal("rt-red is gone")
		return ""
	}
	for _, tc := range []struct {
		name string
		cmd  kittest.Command
		args func(missing string) []string
	}{
		{"ls", lsCmd, func(missing string) []string { return []string{"rt-red:" + missing} }},
		{"cp", cpCmd, func(missing string) []string { return []string{"rt-red:" + missing, filepath.Join(t.TempDir(), "got")} }},
		{"rm", rmCmd, func(missing string) []string { return []string{"rt-red:" + missing} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := token()
			r := e.Run(tc.cmd, append(tc.args("/content/missing-"+before), "--json")...)
			secrets := []string{before, token()}
			var doc map[string]any
			if err := json.Unmarshal([]byte(r.Out), &doc); err != nil {
				t.Fatalf("exit %d: stdout is not one JSON document (%v): %q", r.Code, err, r.Out)
			}
			failure, _ := doc["error"].(map[string]any)
			msg, _ := failure["message"].(string)
			if r.Code != ExitNoSuchFile || doc["ok"] != false || !strings.Contains(msg, "missing-") || !strings.Contains(r.Err, "missing-") {
				t.Fatalf("exit %d, stdout %q, stderr %q: want a not-found failure naming the path", r.Code, r.Out, r.Err)
			}
			delete(doc, "path")
			rest, _ := json.Marshal(doc)
			secrettest.Check(t, tc.name+" --json stdout", string(rest), secrets...)
			secrettest.Check(t, tc.name+" --json stderr", r.Err, secrets...)
		})
	}
}
