package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/ui/cli/docgen"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

var updateReference = flag.Bool("update-reference", false, "rewrite docs/reference and docs/man from the code")

// repoRoot is the repository's root, seen from this package's directory.
const repoRoot = "../.."

// The CLI reference, the man pages, the key table and the JSON Schemas in
// the tree are what the code generates today: a flag, verb, key or --json
// field changed without regenerating fails here, and so does a stale file
// left behind by a removed verb.
func TestReferenceCurrent(t *testing.T) {
	files, err := referenceFiles()
	if err != nil {
		t.Fatal(err)
	}
	for dir, gen := range map[string]func(*cobra.Command) (map[string][]byte, error){referenceCLIDir: docgen.Markdown, referenceManDir: docgen.Man} {
		pages, err := gen(CommandTree())
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		for name, b := range pages {
			files[dir+"/"+name] = b
		}
	}
	dirs := []string{referenceCLIDir, referenceManDir, referenceSchemaDir}
	if *updateReference {
		for _, d := range dirs {
			if err := os.RemoveAll(filepath.Join(repoRoot, d)); err != nil {
				t.Fatal(err)
			}
		}
		for rel, b := range files {
			p := filepath.Join(repoRoot, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	const hint = " (run: go test ./ui/cli -run TestReferenceCurrent -update-reference)"
	for rel, want := range files {
		got, err := os.ReadFile(filepath.Join(repoRoot, rel))
		if err != nil {
			t.Errorf("%s is missing%s", rel, hint)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale%s", rel, hint)
		}
	}
	for _, d := range dirs {
		entries, err := os.ReadDir(filepath.Join(repoRoot, d))
		if err != nil {
			t.Errorf("%s: %v%s", d, err, hint)
			continue
		}
		for _, e := range entries {
			if _, ok := files[d+"/"+e.Name()]; !ok {
				t.Errorf("%s/%s is not generated any more%s", d, e.Name(), hint)
			}
		}
	}
	if len(files) < 40 {
		t.Errorf("only %d reference files generated; want a page per command, man pages, keys and schemas", len(files))
	}
}

// Every command that takes --json has a schema in jsonDocs, and nothing
// else does.
func TestEveryJSONVerbHasASchema(t *testing.T) {
	var g kit.Globals
	root := newRootCommand(&g, &kit.Streams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
	seen := map[string]bool{}
	walkCommands(root, func(c *cobra.Command) {
		if c.Flags().Lookup("json") == nil {
			return
		}
		name := strings.ReplaceAll(strings.TrimPrefix(c.CommandPath(), "colabdash "), " ", "-")
		seen[name] = true
		if _, ok := jsonDocs[name]; !ok {
			t.Errorf("%s takes --json but has no schema in jsonDocs", c.CommandPath())
		}
	})
	for name := range jsonDocs {
		if !seen[name] {
			t.Errorf("jsonDocs has %s, which takes no --json", name)
		}
	}
}

// What each --json verb really prints, on success and on failure, is valid
// against the schema in docs/reference/schemas: a field renamed, a type
// changed or a field added without the schema fails.
func TestJSONOutputsMatchSchemas(t *testing.T) {
	e := demoVerbEnv(t)
	local := writeFile(t, filepath.Join(t.TempDir(), "data.csv"), "a,b\n1,2\n")
	script := writeFile(t, filepath.Join(t.TempDir(), "job.py"), "print('hello')\n")
	cases := []struct {
		schema string
		args   []string
	}{
		{"status", []string{"status"}},
		{"specs", []string{"specs"}},
		{"create", []string{"create", "--spec", "CPU/STANDARD", "--wait"}},
		{"sessions", []string{"sessions", "rt-t4demo7k2p"}},
		{"session-open", []string{"session", "open", "rt-t4demo7k2p"}},
		{"exec", []string{"exec", "rt-t4demo7k2p", "-c", "print(6*7)"}},
		{"exec", []string{"exec", "rt-t4demo7k2p", "-c", "raise ValueError('boom')"}},
		{"url", []string{"url", "rt-t4demo7k2p"}},
		{"top", []string{"top"}},
		{"top", []string{"top", "rt-nope"}},
		{"token", []string{"token", "rt-t4demo7k2p"}},
		{"cp", []string{"cp", local, "rt-t4demo7k2p:/content/"}},
		{"cp", []string{"cp", "rt-t4demo7k2p:/content/nope", t.TempDir()}},
		{"ls", []string{"ls", "rt-t4demo7k2p:/content"}},
		{"ls", []string{"ls", "rt-t4demo7k2p:/nope"}},
		{"rm", []string{"rm", "rt-t4demo7k2p:/content/data.csv"}},
		{"rm", []string{"rm", "rt-t4demo7k2p:/content/nope"}},
		{"session-close", []string{"session", "close", "--yes", "rt-t4demo7k2p/nope"}},
		{"run", []string{"run", "--runtime", "rt-t4demo7k2p", script}},
		{"delete", []string{"run", "--reap", "--yes"}},
		{"delete", []string{"run", "--reap"}},           // not confirmed: no terminal, no --yes
		{"delete", []string{"delete", "rt-cpudemo4qx"}}, // not confirmed: no terminal, no --yes
		{"delete", []string{"delete", "--yes", "rt-cpudemo4qx", "rt-gone"}},
		{"version", []string{"version"}},
		{"doctor", []string{"doctor"}},
		{"doctor", []string{"doctor", "extra"}},   // a usage error: the envelope alone
		{"version", []string{"version", "extra"}}, // a usage error: the envelope alone
		{"jobs", []string{"jobs", "rt-t4demo7k2p"}},
		{"logs", []string{"logs", "rt-t4demo7k2p/nope-1"}}, // no such job: the envelope alone
		{"wait", []string{"wait", "rt-t4demo7k2p/nope-1"}},
	}
	tested := map[string]bool{}
	for _, tc := range cases {
		tested[tc.schema] = true
		raw, err := os.ReadFile(filepath.Join(repoRoot, referenceSchemaDir, tc.schema+".schema.json"))
		if err != nil {
			t.Fatal(err)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatalf("%s schema: %v", tc.schema, err)
		}
		rs, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s schema: %v", tc.schema, err)
		}
		code, out, errs := e.run(append(append(tc.args, "--json"), e.flags...)...)
		var doc any
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Errorf("%s --json (exit %d) printed no JSON document: %v\nstdout %q\nstderr %q", strings.Join(tc.args, " "), code, err, out, errs)
			continue
		}
		if err := rs.Validate(doc); err != nil {
			t.Errorf("%s --json (exit %d) does not match %s.schema.json: %v\n%s", strings.Join(tc.args, " "), code, tc.schema, err, out)
		}
	}
	var missing []string
	for name := range jsonDocs {
		if !tested[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("no real output checked against the schemas of %v", missing)
	}
}
