package docgen

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// repoRoot is the repository's top directory, from this package's.
const repoRoot = "../../.."

// Help texts name documentation as docs/FILE.md#anchor, or as a section
// of a file ("README, Idle runtimes", `README, "Idle runtimes"`).
var (
	docPathRef = regexp.MustCompile(`docs/[A-Za-z0-9_./-]*[A-Za-z0-9_/-](#[A-Za-z0-9_-]+)?`)
	sectionRef = regexp.MustCompile(`\b(README|[a-z-]+\.md),\s+"?([A-Z][^"()\n]*?)"?[)\n]`)
)

// Every file, anchor and section the --help texts (as the generated
// reference holds them, every flag's text included) send a reader to
// exists: a help that points nowhere leaves the reader stuck.
func TestHelpReferencesResolve(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs/reference/cli/*.md"))
	if err != nil || len(pages) < 25 {
		t.Fatalf("reference pages: %d, %v", len(pages), err)
	}
	refs := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for _, m := range docPathRef.FindAllStringSubmatch(text, -1) {
			refs++
			file, anchor, _ := strings.Cut(m[0], "#")
			if _, err := os.Stat(filepath.Join(repoRoot, file)); err != nil {
				t.Errorf("%s names %s, which does not exist", filepath.Base(page), m[0])
				continue
			}
			if anchor != "" && !hasHeading(t, file, func(h string) bool { return slug(h) == anchor }) {
				t.Errorf("%s names %s: %s has no heading with that anchor", filepath.Base(page), m[0], file)
			}
		}
		for _, m := range sectionRef.FindAllStringSubmatch(text, -1) {
			refs++
			file := "README.md"
			if m[1] != "README" {
				file = "docs/" + m[1]
			}
			section := strings.TrimSpace(m[2])
			if !hasHeading(t, file, func(h string) bool { return strings.EqualFold(h, section) }) {
				t.Errorf("%s names %q: %s has no section %q", filepath.Base(page), strings.TrimSpace(m[0]), file, section)
			}
		}
	}
	if refs < 10 {
		t.Errorf("found %d references in the help texts: the patterns no longer match them", refs)
	}
}

// hasHeading reports whether the Markdown file (relative to the
// repository) has a heading for which match is true; the heading's text
// is given without its #s and backquotes.
func hasHeading(t *testing.T, file string, match func(string) bool) bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, file))
	if err != nil {
		t.Errorf("%s: %v", file, err)
		return false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if h, ok := strings.CutPrefix(l, "#"); ok && match(strings.ReplaceAll(strings.TrimSpace(strings.TrimLeft(h, "#")), "`", "")) {
			return true
		}
	}
	return false
}

// slug is a heading's anchor as GitHub makes it: lower case, spaces to
// hyphens, other punctuation dropped.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// jsonVerb is how docs/scripting.md introduces a verb's document:
// "`sessions --json`", or the verb's own heading ("### `colabdash status`").
var jsonVerb = regexp.MustCompile("`(?:colabdash )?([a-z]+(?: [a-z]+)?)(?: --json)?`")

// Every JSON example of docs/scripting.md is a document its verb really
// prints: it validates against the verb's generated schema (the success
// document: every key it must have, "ok" included, and none it cannot
// have). An example of the failure envelope alone validates against the
// envelope.
func TestScriptingJSONExamplesMatchSchemas(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "docs/scripting.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	checked := 0
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```json" {
			continue
		}
		start := i + 1
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
		}
		var doc map[string]any
		if err := json.Unmarshal([]byte(strings.Join(lines[start:i], "\n")), &doc); err != nil {
			t.Errorf("docs/scripting.md:%d: the example is not one JSON object: %v", start, err)
			continue
		}
		verb := verbBefore(lines, start-1)
		if verb == "" {
			t.Errorf("docs/scripting.md:%d: no `VERB --json` or verb heading names the example's verb", start)
			continue
		}
		schema := loadSchema(t, verb)
		if schema == nil {
			continue
		}
		branch := 0 // the verb's own document
		if ok, isBool := doc["ok"].(bool); isBool && !ok && len(doc) == 2 {
			branch = 1 // the envelope alone, on a failure
		}
		rs, err := schema.AnyOf[branch].Resolve(nil)
		if err != nil {
			t.Fatalf("%s schema: %v", verb, err)
		}
		if err := rs.Validate(doc); err != nil {
			t.Errorf("docs/scripting.md:%d: the %s --json example is not what %s prints: %v", start, verb, verb, err)
		}
		checked++
	}
	if checked < 9 {
		t.Errorf("checked %d JSON examples, want every one of docs/scripting.md's (9 or more)", checked)
	}
}

// verbBefore is the verb whose document the example opening after line
// i shows: the first verb named in a `... --json` mention or a "###
// `colabdash VERB`" heading, going back from i to the nearest heading.
func verbBefore(lines []string, i int) string {
	for ; i >= 0; i-- {
		l := lines[i]
		heading := strings.HasPrefix(l, "#")
		for _, m := range jsonVerb.FindAllStringSubmatch(l, -1) {
			if heading || strings.HasSuffix(m[0], " --json`") {
				return m[1]
			}
		}
		if heading {
			return "status" // the envelope section: any verb's schema has it
		}
	}
	return ""
}

// loadSchema reads the generated schema of verb ("session close").
func loadSchema(t *testing.T, verb string) *jsonschema.Schema {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "docs/reference/schemas", strings.ReplaceAll(verb, " ", "-")+".schema.json"))
	if err != nil {
		t.Errorf("%s --json: %v", verb, err)
		return nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s schema: %v", verb, err)
	}
	if len(s.AnyOf) != 2 {
		t.Fatalf("%s schema: want anyOf [document, envelope], got %d branches", verb, len(s.AnyOf))
	}
	return &s
}
