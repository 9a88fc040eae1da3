package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
)

// Field trial: README's emulator example wrote "anything" to token.txt;
// the redactor then masked that word everywhere, and delete asked
// "Type y to delete ([redacted] else cancels)". Every token README tells
// users to write is used as the access token here, and the questions
// colabdash asks must still read as written.
func TestReadmeTokensDoNotCollideWithProse(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	toks := regexp.MustCompile(`(?m)^echo (\S+) > token\.txt$`).FindAllStringSubmatch(string(readme), -1)
	if len(toks) == 0 {
		t.Fatal("README has no `echo TOKEN > token.txt` example any more: update this test")
	}
	for _, m := range toks {
		e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedDemo})
		e.flags[len(e.flags)-1] = writeFile(t, filepath.Join(e.home, "token.txt"), m[1]+"\n")
		for _, args := range [][]string{{"delete", "rt-cpu"}, {"session", "close", "rt-t4/notebook-ab12cd34", "--force"}} {
			code, _, errs := e.runTerm(term{in: "n\n", inTTY: true, errTTY: true}, args...)
			if code != exitPartial || strings.Contains(errs, "[redacted]") || !strings.Contains(errs, "(anything else cancels)") {
				t.Errorf("token %q from README: %v asks %q", m[1], args, errs)
			}
		}
	}
}
