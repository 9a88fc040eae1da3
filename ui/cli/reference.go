package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/colabdash/colabdash/ui/cli/exec"
	runcmd "github.com/colabdash/colabdash/ui/cli/run"
	"github.com/colabdash/colabdash/ui/cli/top"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/ui/cli/files"
	"github.com/colabdash/colabdash/ui/cli/jobs"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/cli/runtimes"
)

// The generated references, relative to the repository's root. Each is
// made from the code (the cobra tree through package docgen, keymap, the
// --json types) and checked current by TestReferenceCurrent; `go test
// ./ui/cli -run TestReferenceCurrent -update-reference` rewrites them.
const (
	referenceCLIDir    = "docs/reference/cli"     // one Markdown page per command
	referenceManDir    = "docs/man"               // colabdash.1 and one page per verb
	referenceKeysFile  = "docs/reference/keys.md" // the default key bindings
	referenceSchemaDir = "docs/reference/schemas" // VERB.schema.json per --json output
	// referenceConfigSchema is config.yaml's JSON Schema, for editors.
	referenceConfigSchema = "docs/reference/config.schema.json"
)

// jsonDocs maps each verb that takes --json (its command path after
// "colabdash", as a file name: "session-close") to the Go type it prints;
// the schema is generated from that type. A verb added with --json gets
// a line here, or TestEveryJSONVerbHasASchema fails.
var jsonDocs = map[string]reflect.Type{
	"status":        reflect.TypeFor[StatusReport](),
	"specs":         reflect.TypeFor[runtimes.SpecsReport](),
	"create":        reflect.TypeFor[runtimes.CreateReport](),
	"delete":        reflect.TypeFor[runtimes.DeleteReport](),
	"sessions":      reflect.TypeFor[runtimes.SessionsReport](),
	"session-open":  reflect.TypeFor[runtimes.SessionOpenReport](),
	"session-close": reflect.TypeFor[runtimes.CloseReport](),
	"exec":          reflect.TypeFor[exec.Report](),
	"url":           reflect.TypeFor[runtimes.ConnectionReport](),
	"top":           reflect.TypeFor[top.Report](),
	"token":         reflect.TypeFor[runtimes.ConnectionReport](),
	"ls":            reflect.TypeFor[files.LsJSON](),
	"cp":            reflect.TypeFor[files.CopySummary](),
	"rm":            reflect.TypeFor[files.RmReport](),
	"run":           reflect.TypeFor[runcmd.Report](), // run --reap --json prints delete's
	"version":       reflect.TypeFor[VersionReport](),
	"doctor":        reflect.TypeFor[DoctorReport](),
	"jobs":          reflect.TypeFor[jobs.JobsReport](),
	"logs":          reflect.TypeFor[jobs.LogsReport](),
	"wait":          reflect.TypeFor[jobs.WaitReport](),
}

// referenceFiles returns the generated reference files made here: the
// key table and the JSON Schemas, by path relative to the repository's
// root. The CLI pages and man pages (referenceCLIDir, referenceManDir)
// are package docgen's, made from CommandTree.
func referenceFiles() (map[string][]byte, error) {
	files := map[string][]byte{}
	files[referenceKeysFile] = keyTable(keymap.Default())
	cs, err := config.FileSchema(keymap.Actions())
	if err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(cs, "", "  ")
	if err != nil {
		return nil, err
	}
	files[referenceConfigSchema] = append(b, '\n')
	for name, t := range jsonDocs {
		s, err := jsonschema.ForType(t, nil)
		if err != nil {
			return nil, fmt.Errorf("schema of %s --json: %w", name, err)
		}
		// Whatever failed, a --json command prints one document: the
		// verb's own, or, when it failed before it had one, the envelope
		// alone (kit.WriteFailure).
		fail, err := jsonschema.ForType(reflect.TypeFor[kit.Envelope](), nil)
		if err != nil {
			return nil, err
		}
		fail.Description = "the failure envelope alone: printed when the command failed before it had a document of its own"
		s.Description = "the command's document"
		s = &jsonschema.Schema{AnyOf: []*jsonschema.Schema{s, fail}}
		s.Schema = "https://json-schema.org/draft/2020-12/schema"
		s.Title = "colabdash " + strings.ReplaceAll(name, "-", " ") + " --json"
		b, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return nil, err
		}
		files[referenceSchemaDir+"/"+name+".schema.json"] = append(b, '\n')
	}
	return files, nil
}

// CommandTree is colabdash's whole command tree, help and completion
// commands included, built without running anything and with its output
// discarded: what the generated CLI reference and man pages are made
// from (ui/cli/docgen). Each call builds a new tree.
func CommandTree() *cobra.Command {
	var g kit.Globals
	root := newRootCommand(&g, &kit.Streams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard})
	root.InitDefaultCompletionCmd()
	root.InitDefaultHelpCmd()
	walkCommands(root, func(c *cobra.Command) { c.DisableAutoGenTag = true })
	return root
}

// walkCommands calls f on c and every command below it.
func walkCommands(c *cobra.Command, f func(*cobra.Command)) {
	f(c)
	for _, sub := range c.Commands() {
		walkCommands(sub, f)
	}
}

// keyTable is docs/reference/keys.md: one Markdown table per keymap
// scope (the dashboard's global keys, the runtimes table, the sessions
// pane, each layer), one row per action read there, with the default
// keys.
func keyTable(k *keymap.KeyMap) []byte {
	var b bytes.Buffer
	b.WriteString("# Default key bindings\n\n" +
		"Generated from keymap (do not edit; `go test ./ui/cli -run TestReferenceCurrent -update-reference`).\n" +
		"Rebind any action in the config file's `keys:` section by its action name: it changes in every\n" +
		"section below that lists it. Actions marked \"changes Colab\" are off in `--readonly`.\n")
	scope := "-"
	for _, r := range k.Rows() {
		if r.Scope != scope {
			scope = r.Scope
			fmt.Fprintf(&b, "\n## %s\n\n| keys | action | what it does | |\n|---|---|---|---|\n", scope)
		}
		keys := make([]string, len(r.Keys))
		for i, key := range r.Keys {
			if key == " " {
				key = "space"
			}
			keys[i] = "`" + strings.ReplaceAll(key, "|", `\|`) + "`"
		}
		mut := ""
		if r.Mutating {
			mut = "changes Colab"
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", strings.Join(keys, " "), r.Action, r.Help, mut)
	}
	return b.Bytes()
}
