package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// A release build stamps its version, commit and date with -ldflags -X
// (as .goreleaser.yaml does); `version --json` of such a binary reports
// exactly those, matching its schema, and `version` and --version say the
// same on one line. (Built without VCS information, it knows of no
// change to the tree: modified is false.)
func TestVersionOfAStampedBuild(t *testing.T) {
	skipUnderShort(t)
	const (
		pkg     = "github.com/colabdash/colabdash/ui/cli/kit."
		version = "v9.8.7"
		commit  = "0123456789abcdef0123456789abcdef01234567"
		date    = "2026-12-01T10:11:12Z"
	)
	bin := filepath.Join(t.TempDir(), "colabdash")
	// The same flags as the tests' other build (binary), so only the link
	// is new.
	build := exec.Command("go", "build", "-buildvcs=false", "-o", bin,
		"-ldflags", "-X "+pkg+"Version="+version+" -X "+pkg+"Commit="+commit+" -X "+pkg+"Date="+date,
		"github.com/colabdash/colabdash")
	build.Env = initialEnv // the real HOME, so the build cache is warm
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	isolate(t)
	out, err := exec.Command(bin, "version", "--json").Output()
	if err != nil {
		t.Fatalf("version --json: %v\n%s", err, out)
	}
	var doc map[string]any
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("version --json printed no JSON: %v\n%s", err, out)
	}
	want := map[string]any{"ok": true, "version": version, "commit": commit, "date": date, "modified": false}
	for k, w := range want {
		if doc[k] != w {
			t.Errorf("%s = %v, want %v\n%s", k, doc[k], w, out)
		}
	}
	if gv, _ := doc["goVersion"].(string); !strings.HasPrefix(gv, "go1.") {
		t.Errorf("goVersion = %q", gv)
	}
	raw, err := os.ReadFile(filepath.Join(repoRoot, referenceSchemaDir, "version.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := rs.Validate(doc); err != nil {
		t.Errorf("version --json does not match version.schema.json: %v\n%s", err, out)
	}

	line := "colabdash " + version + " (commit " + commit + ", " + date + ", go1."
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, err := exec.Command(bin, args...).Output()
		if err != nil || !strings.HasPrefix(string(out), line) || strings.Count(string(out), "\n") != 1 {
			t.Errorf("%v: %v %q, want one line starting %q", args, err, out, line)
		}
	}
	if out, err := exec.Command(bin, "version", "--jq", ".commit").Output(); err != nil || string(out) != commit+"\n" {
		t.Errorf("version --jq .commit: %v %q", err, out)
	}
}
