package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"log/slog"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// urlSecretCases are URLs and form bodies with a secret in a query value,
// a fragment, a form field or the user info; want is the secret.
var urlSecretCases = []struct{ in, secret string }{
	{"https://colab.example/mcp?access_token=ya29-lookalike-A1b2C3d4", "ya29-lookalike-A1b2C3d4"},
	{"https://127.0.0.1:8888/lab?token=4f9c2e7a1b3d5f60a8c9e2b4d6f8a0c1e3b5d7f9a1c3e5b7", "4f9c2e7a1b3d5f60a8c9e2b4d6f8a0c1e3b5d7f9a1c3e5b7"},
	{"https://colab.example/mcp?alt=json&key=AIzaSyB-1a2b3c4d5e6f7g8h9i0jKLMNOPQRS", "AIzaSyB-1a2b3c4d5e6f7g8h9i0jKLMNOPQRS"},
	{"https://acct.blob.example/c/f?sv=2024&sig=Zm9vYmFyYmF6cXV4%2Bq%3D&se=2026", "Zm9vYmFyYmF6cXV4%2Bq%3D"},
	{"http://127.0.0.1:8085/callback?state=xyz&code=4%2F0AeanS0abcDEF123ghi&scope=email", "4%2F0AeanS0abcDEF123ghi"},
	{"https://storage.example/b/o?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Signature=8a7b6c5d4e3f2a1b0c9d", "8a7b6c5d4e3f2a1b0c9d"},
	{"https://h.example/cb#access_token=frag-Tok3n-998877&token_type=Bearer", "frag-Tok3n-998877"},
	{"client_id=cid&client_secret=GOCSPX-s3cr3t-V4lue&grant_type=refresh_token", "GOCSPX-s3cr3t-V4lue"},
	{"grant_type=refresh_token&refresh_token=1%2F%2F0gRefreshXYZ987", "1%2F%2F0gRefreshXYZ987"},
	{"grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=eyJhbGci.eyJpc3Mi.c2lnbmF0", "eyJhbGci.eyJpc3Mi.c2lnbmF0"},
	{"audience=aud&subject_token=eyJraWQi.subject-JWT-5566&subject_token_type=jwt", "eyJraWQi.subject-JWT-5566"},
	{"username=me&password=correct-horse-battery-9", "correct-horse-battery-9"},
	{"client_assertion_type=jwt&client_assertion=eyJ0eXAi.clientJWT.c2ln", "eyJ0eXAi.clientJWT.c2ln"},
	{"code=abc&code_verifier=dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"},
	{"https://user:Pa55w0rd-Secret@proxy.example:3128/", "Pa55w0rd-Secret"},
}

// Secrets in URLs are redacted wherever text goes — Redact, the
// redacting slog handler, the log file's handler — and what is not a
// secret around them stays.
func TestURLSecretsRedactedOnEveryPath(t *testing.T) {
	var r Redactor
	for _, tc := range urlSecretCases {
		var textLog, fileLog bytes.Buffer
		slog.New(NewRedactingHandler(slog.NewTextHandler(&textLog, nil), &r)).Info("call failed: "+tc.in, "url", tc.in, "err", errors.New("GET "+tc.in+": refused"))
		slog.New(NewLogHandler(&fileLog, nil, &r)).Warn(tc.in, "endpoint", tc.in)
		for path, out := range map[string]string{
			"Redact":           r.Redact(tc.in),
			"Redact in a line": r.Redact("dial " + tc.in + " failed (retrying)"),
			"RedactingHandler": textLog.String(),
			"the log file":     fileLog.String(),
		} {
			if strings.Contains(out, tc.secret) || !strings.Contains(out, Redacted) {
				t.Errorf("%s(%q) = %q: the secret %q is shown", path, tc.in, out, tc.secret)
			}
		}
	}
	// Around the secrets, the rest stays.
	for in, want := range map[string]string{
		"https://colab.example/mcp?alt=json&key=AIzaSyB-1a2b3c4d5e6f7g8h9i0jKLMNOPQRS&x=1": "https://colab.example/mcp?alt=json&key=" + Redacted + "&x=1",
		"(see https://h.example/?token=4f9c2e7a1b3d5f60a8c9).":                             "(see https://h.example/?token=" + Redacted + ").",
		"https://user:Pa55w0rd-Secret@proxy.example:3128/":                                 "https://user:" + Redacted + "@proxy.example:3128/",
		"exit code=3 after 2 attempts; key=value pairs":                                    "exit code=3 after 2 attempts; key=value pairs",
	} {
		if got := r.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// ownWordsCue finds literals worth checking: those a credential pattern
// looks at.
var ownWordsCue = regexp.MustCompile(`(?i)bearer|token|key|authorization|secret|password|assertion|code=|sig=|ya29|://[^/\s]*@`)

// The redactor never eats colabdash's own words ("a bearer
// [redacted] is letters…"). Every string literal of the product's source
// that a pattern could look at — help texts, hints, fixes, errors — goes
// through Redact unchanged, and so do these whole hint lines as printed.
func TestRedactorKeepsColabdashWords(t *testing.T) {
	var r Redactor
	r.Add("ya29.registered-access-token-0123456789", "4f9c2e7a1b3d5f60a8c9e2b4d6f8a0c1e3b5d7f9a1c3e5b7")
	// The product's source: every file of this module's packages linked
	// into the binary (test kits are not, and print nothing to a user).
	list := exec.Command("go", "list", "-deps", "-f", `{{if .Module}}{{if eq .Module.Path "github.com/colabdash/colabdash"}}{{range .GoFiles}}{{$.Dir}}/{{.}}
{{end}}{{end}}{{end}}`, "github.com/colabdash/colabdash")
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, p := range strings.Fields(string(out)) {
		// The pattern sources themselves are not words.
		if strings.HasSuffix(p, filepath.Join("api", "redact.go")) {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			bl, ok := n.(*ast.BasicLit)
			if !ok || bl.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(bl.Value)
			if err != nil || !ownWordsCue.MatchString(s) {
				return true
			}
			checked++
			if out := r.Redact(s); out != s {
				t.Errorf("%s: Redact(%q) = %q; colabdash's own words changed", fset.Position(bl.Pos()), s, out)
			}
			return true
		})
	}
	if checked < 100 {
		t.Fatalf("only %d literals checked: the walk missed the source tree", checked)
	}
	for _, line := range []string{
		"access token file /tmp/t is not usable: the access token has a character an HTTP header cannot carry (byte 3; a bearer token is letters, digits and -._~+/ with = at the end)",
		"colabdash emulator: serving on http://127.0.0.1:8089/mcp (any non-empty bearer token is accepted; Ctrl+C stops it)",
		`WWW-Authenticate: Bearer realm="colabdash-emulator", error="invalid_token"`,
		`that token (in the URL, an "Authorization: token …" header, or the cookie the URL sets)`,
		`curl -H "X-Colab-Runtime-Proxy-Token: $(colabdash token rt-abc)" "$(colabdash url rt-abc)/api/kernels"`,
		"colabdash forward rt-abc                # http://127.0.0.1:8888/?token=…",
		"--jupyter-upstream is not an http or https URL (e.g. https://jupyter.example.com/?token=…)",
		"colabdash emulator --jupyter-upstream 'http://127.0.0.1:8888/?token=abc'",
		"pass --access-token-file FILE (a bearer token); the Authorization header carries it as Bearer TOKEN",
		"refresh tokens, client secrets and keys are never printed; use ?token=YOUR_TOKEN or ?key=<api key>",
		"exit code 3: credentials; key bindings: keys.refresh=[ctrl+r]",
	} {
		if out := r.Redact(line); out != line {
			t.Errorf("Redact(%q)\n   = %q", line, out)
		}
	}
	// The same prefixes before a token-shaped value still redact it.
	for in, secret := range map[string]string{
		"a bearer ya29x-0123456789abcdef is bad": "ya29x-0123456789abcdef",
		"Authorization: token 4f9c2e7a1b3d5f60":  "4f9c2e7a1b3d5f60",
		"Authorization: Basic dXNlcjpwYXNz":      "dXNlcjpwYXNz",
		"X-Colab-Runtime-Proxy-Token: tok_9f8e":  "tok_9f8e",
		"sent Bearer qwerty123 along":            "qwerty123",
	} {
		if out := r.Redact(in); strings.Contains(out, secret) {
			t.Errorf("Redact(%q) = %q shows %q", in, out, secret)
		}
	}
}

// The log file escapes C1 controls, DEL and bidirectional
// controls as the JSON encoder escapes C0 ones: no raw byte of them is
// written, and the line still decodes to the text that was logged.
func TestLogFileEscapesC1AndBidi(t *testing.T) {
	const hostile = "name\x1b[31mred\u009b2Jcsi\u0085nel\x7fdel\u202egnp.exe\u2066iso\u2069\u200frlm\u061calm"
	var buf bytes.Buffer
	log := slog.New(NewLogHandler(&buf, nil, nil))
	log.Info(hostile, "runtime", hostile, "err", errors.New(hostile), slog.Group("g", "v", hostile))
	out := buf.String()
	for _, raw := range []string{"\x1b", "\u009b", "\u0085", "\x7f", "\u202e", "\u2066", "\u2069", "\u200f", "\u061c"} {
		if strings.Contains(out, raw) {
			t.Errorf("the log line holds a raw %q:\n%q", raw, out)
		}
	}
	for _, esc := range []string{`\u001b`, `\u009b`, `\u0085`, `\u007f`, `\u202e`, `\u2066`, `\u2069`, `\u200f`, `\u061c`} {
		if !strings.Contains(out, esc) {
			t.Errorf("the log line lacks %s:\n%s", esc, out)
		}
	}
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatalf("not one JSON line: %v\n%s", err, out)
	}
	g, _ := rec["g"].(map[string]any)
	if rec["msg"] != hostile || rec["runtime"] != hostile || rec["err"] != hostile || g["v"] != hostile {
		t.Errorf("the line does not decode to what was logged: %v", rec)
	}
	// Plain text and other non-ASCII pass untouched.
	buf.Reset()
	log.Info("ok", "name", "café — 日本語 ✓")
	if !strings.Contains(buf.String(), `"name":"café — 日本語 ✓"`) {
		t.Errorf("plain text changed: %s", buf.String())
	}
}

// redactPatternsWith skips text without patternBytes or "29." (file names in
// a listing of 100,000 entries): no pattern may match such text. Word
// salad built from every pattern's parts, with and without those bytes,
// is redacted alike by the skipping path and the full one, and by
// RedactBytes and Redact; a pattern added without a byte of patternBytes
// in every match fails here.
func TestPatternsNeedTheirBytes(t *testing.T) {
	parts := []string{"bearer", "Bearer", "ya29.", "YA29", "token", "access_token", "authorization",
		"x-colab-runtime-proxy-token", "x-goog-api-key", "private", "key", "PRIVATE KEY", "-----BEGIN",
		"-----END", "code", "sig", "password", "https", "://", "@", "=", ":", "\"", "'", "\\", "?", "&", "#",
		" ", "\t", "\n", "AbCdEf0123456789", "s3cr3t-V4lue_x", ".", "-", "_", "/", "%", "u0026", "29"}
	rng := rand.New(rand.NewPCG(24, 19))
	free, changed := 0, 0
	var red Redactor // RedactBytes, which skips text it need not copy, redacts as Redact
	red.Add("AbCdEf0123456789")
	for i := 0; i < 40_000; i++ {
		var b strings.Builder
		for n := 1 + rng.IntN(12); n > 0; n-- {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		s := b.String()
		_, w, _ := wordMatcher().spans(s)
		full := applyPatterns(s, w, replaceSpans)
		if full != s {
			changed++
		}
		if !strings.ContainsAny(s, patternBytes) && !strings.Contains(s, "29.") {
			free++
			if full != s {
				t.Fatalf("%q has none of patternBytes, yet the patterns redact it: %q", s, full)
			}
		}
		if got := redactPatternsWith(s, w); got != full {
			t.Fatalf("redactPatternsWith(%q) = %q, applyPatterns = %q", s, got, full)
		}
		if got, want := red.RedactBytes([]byte(s)), red.Redact(s); string(got) != want {
			t.Fatalf("RedactBytes(%q) = %q, Redact = %q", s, got, want)
		}
	}
	if free < 1000 || changed < 1000 {
		t.Fatalf("the salad is too thin: %d strings without pattern bytes, %d redacted", free, changed)
	}
}

// The patterns run when a text holds their words in any letter case:
// the matcher's pass (no lower-cased copy) finds every word that
// strings.ToLower and a substring search find, also in texts holding the
// non-ASCII letters Unicode takes for i, s and k (İ, ſ, K); and a secret
// behind such a word is redacted whatever its case.
func TestPatternWordsInAnyCase(t *testing.T) {
	parts := []string{"Private Key", "PRIVATE KEY", "private\tkey", "toKen", "AUTHORIZATION", "authorİzation", "ſecret", "Secret",
		"\u212aey", "KEY", "assertion", "ASSERTION", "passwOrd", "Code", "X-Colab-Runtime-Proxy-Token", "x-goog-api-key",
		"BEARER", "bearer", "YA29.", "ya29", "tok", "en", "pass", "word", "se", "cret", " ", "\"", ":", "=", "é", "x", "\u212a"}
	rng := rand.New(rand.NewPCG(7, 39))
	for i := 0; i < 20_000; i++ {
		var b strings.Builder
		for n := 1 + rng.IntN(8); n > 0; n-- {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		s := b.String()
		lower := strings.ToLower(s)
		_, got, _ := wordMatcher().spans(s)
		for _, tw := range triggerWords {
			if strings.Contains(lower, tw.text) && got&tw.w == 0 {
				t.Fatalf("%q: %q not found (found %b)", s, tw.text, got)
			}
		}
	}
	for _, c := range []struct{ in, secret string }{
		{`{"TOKEN": "s3cr3t-V4lue_0123"}`, "s3cr3t-V4lue_0123"},
		{"{\"api_\u212aey\": \"s3cr3t-V4lue_4567\"}", "s3cr3t-V4lue_4567"},
		{`{"ſecret_x": 1, "PASSWORD":"s3cr3t-V4lue_89ab"}`, "s3cr3t-V4lue_89ab"},
		{"AUTHORIZATION: BEARER AbCdEf0123456789xyz", "AbCdEf0123456789xyz"},
		{"sent YA29.a0AfH6SMBx-token-value", "a0AfH6SMBx-token-value"},
	} {
		if got := (&Redactor{}).Redact(c.in); strings.Contains(got, c.secret) {
			t.Errorf("Redact(%q) = %q: the secret is shown", c.in, got)
		}
	}
}

// BenchmarkRedactListingBlock: one redaction of a 32 KiB block of an ls
// --json document (no secret in it, one registered token), as every
// block of a listing of 100,000 entries passes it.
func BenchmarkRedactListingBlock(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 32<<10; i++ {
		fmt.Fprintf(&sb, ",\n    {\"name\": \"img_%06d_augmented_sample.png\", \"path\": \"/content/many/img_%06d_augmented_sample.png\", \"type\": \"file\", \"size\": 0, \"lastModified\": \"2026-11-01T12:00:00Z\"}", i, i)
	}
	block := sb.String()
	var r Redactor
	r.Add("uV9h62qbQ2E-X5MWDaI_proxy-token-0123456789")
	b.SetBytes(int64(len(block)))
	for b.Loop() {
		if r.Redact(block) != block {
			b.Fatal("the block changed")
		}
	}
}

// A secret JSON field's value is redacted to its closing quote: in plain
// JSON an escaped quote (\") is inside the value; in JSON quoted inside a
// JSON string (\"token\":\"…\") a \" closes it, and what follows stays.
func TestJSONFieldValueToItsClosingQuote(t *testing.T) {
	var r Redactor
	for in, want := range map[string]string{
		`{"Token" : "a b\"cdefghijkl", "n": 1}`:            `{"Token" : "` + Redacted + `", "n": 1}`,
		`s_{"token":"abc\"DEF123456ghiJKL"}`:               `s_{"token":"` + Redacted + `"}`,
		`{"password": "p\\\\"}`:                            `{"password": "` + Redacted + `"}`,
		`"{\"access_token\":\"ya29-x-y\",\"n\":1}"`:        `"{\"access_token\":\"` + Redacted + `\",\"n\":1}"`,
		`{"token": "abc", "name": "token is a word here"}`: `{"token": "` + Redacted + `", "name": "token is a word here"}`,
	} {
		if got := r.Redact(in); got != want {
			t.Errorf("Redact(%s) = %s, want %s", in, got, want)
		}
	}
}
