package kit

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/secrettest"
)

// Once Protect ran, everything on stdout and stderr passes the redactor,
// whatever wrote it and whether or not the writer redacted first: a
// --json failure document built without redaction, a document's field
// that no verb redacts (ls's "path" is the argument as typed), a line
// written straight to stderr. Only Revealed writes a secret, on purpose.
func TestProtectedStreamsRedactEveryDocument(t *testing.T) {
	// A proxy token no pattern knows: only its registration hides it.
	secret := secrettest.Token("rt-a")
	var out, errb bytes.Buffer
	red := &api.Redactor{}
	red.Add(secret)
	s := &Streams{Out: &out, Err: &errb}
	s.Protect(red)
	v := NewVerb(&Globals{Logs: Logs{Red: red}}, s, "ls")
	v.AsJSON = true
	WriteFailure(s, &ExitError{Code: ExitNotFound, Msg: "list rt-a:/content/missing-" + secret + ": no such file or directory"}, nil)
	if err := v.WriteJSON(map[string]any{"ok": false, "path": "/content/missing-" + secret}); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(s.Err, "colabdash: list rt-a:/content/missing-"+secret)
	if !strings.Contains(out.String(), `"code": "not_found"`) || !strings.Contains(out.String(), `"path": "/content/missing-`) || !strings.Contains(errb.String(), "missing-") {
		t.Fatalf("the documents were not written: stdout %q, stderr %q", out.String(), errb.String())
	}
	secrettest.Check(t, "stdout", out.String(), secret)
	secrettest.Check(t, "stderr", errb.String(), secret)
	out.Reset()
	fmt.Fprint(s.Revealed(), secret)
	if out.String() != secret {
		t.Errorf("Revealed wrote %q, want the secret as it is", out.String())
	}
}
