package cli

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// Field trial: README's emulator example wrote "anything" to token.txt;
// the redactor then masked that word everywhere, and delete asked
// "Type y to delete ([redacted] else cancels)". Every token README tells
// users to write is used as the access token here, and the questions
// colabdash asks must still read as written.
// readDocs is README.md and every page of docs/ (not the generated
// references), one after the other: where the examples a user copies are.
func readDocs(t *testing.T) []byte {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no docs/*.md pages (%v)", err)
	}
	var all []byte
	for _, p := range append([]string{filepath.Join("..", "..", "README.md")}, pages...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		all = append(append(all, b...), '\n')
	}
	return all
}

func TestReadmeTokensDoNotCollideWithProse(t *testing.T) {
	readme := readDocs(t)
	toks := regexp.MustCompile(`(?m)^echo (\S+) > token\.txt$`).FindAllStringSubmatch(string(readme), -1)
	if len(toks) == 0 {
		t.Fatal("README and docs have no `echo TOKEN > token.txt` example any more: update this test")
	}
	for _, m := range toks {
		e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedDemo})
		e.flags[len(e.flags)-1] = writeFile(t, filepath.Join(e.home, "token.txt"), m[1]+"\n")
		for _, args := range [][]string{{"delete", "rt-cpu"}, {"session", "close", "rt-t4/notebook-ab12cd34", "--force"}} {
			code, _, errs := e.runTerm(term{in: "n\n", inTTY: true, errTTY: true}, args...)
			if code != kit.ExitFailure || strings.Contains(errs, "[redacted]") || !strings.Contains(errs, "(anything else cancels)") {
				t.Errorf("token %q from README: %v asks %q", m[1], args, errs)
			}
		}
	}
}

// Field trial: README's curl example appended /api/kernels to
// `colabdash url`, which ends in "/", so it asked for //api/kernels (the
// emulator answered 307) and the emulator does not serve api/kernels at
// all. The example's request, built as a shell would build it, must be
// answered 200 by the emulator's runtime proxy, with no double slash.
func TestReadmeCurlExampleWorks(t *testing.T) {
	readme := readDocs(t)
	m := regexp.MustCompile(`curl -H "X-Colab-Runtime-Proxy-Token: \$\(colabdash token rt-abc\)" "(\$\{url%/\}|\$\(colabdash url rt-abc\))(/[^"]*)"`).FindStringSubmatch(string(readme))
	if m == nil {
		t.Fatal("README and docs have no curl example with the proxy token any more: update this test")
	}
	e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedDemo})
	_, base, _ := e.run("url", "rt-t4")
	_, tok, _ := e.run("token", "rt-t4")
	base, tok = strings.TrimSpace(base), strings.TrimSpace(tok)
	if m[1] == "${url%/}" {
		base = strings.TrimSuffix(base, "/")
	}
	u := base + m[2]
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Colab-Runtime-Proxy-Token", tok)
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if strings.Contains(strings.TrimPrefix(u, "http://"), "//") || resp.StatusCode != http.StatusOK {
		t.Errorf("README's curl example asks for %s: HTTP %d", u, resp.StatusCode)
	}
}
