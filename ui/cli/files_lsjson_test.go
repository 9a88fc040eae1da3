package cli

import (
	"encoding/json"
	"testing"

	"github.com/colabdash/colabdash/ui/cli/files"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// Field trial: `ls RUNTIME:/nope --json` said "runtime": "" and "path": ""
// although the runtime had been resolved; README says a failure's fields
// are filled as far as the command got: the path once read, the runtime
// once resolved.
func TestLsJSONFailureSaysHowFarItGot(t *testing.T) {
	_, flags := filesEmu(t)
	for _, tc := range []struct {
		arg, runtime, path string
		code               int
	}{
		{"rt-fil:/nope", "runtimes/rt-files", "/nope", files.ExitNoSuchFile},
		{"rt-zz:/content/x", "", "/content/x", kit.ExitNotFound},
	} {
		code, out, errs := runCLI(t, append([]string{"ls", tc.arg, "--json"}, flags...)...)
		var rep files.LsJSON
		if err := json.Unmarshal([]byte(out), &rep); err != nil || code != tc.code || rep.OK || rep.Error == nil || rep.Error.Code != kit.CodeWord(tc.code) ||
			string(rep.Runtime) != tc.runtime || rep.Path != tc.path || rep.Entries == nil {
			t.Errorf("ls %s --json: exit %d, stdout %s, stderr %q; want runtime %q, path %q", tc.arg, code, out, errs, tc.runtime, tc.path)
		}
	}
}
