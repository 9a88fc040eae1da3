package config

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/google/jsonschema-go/jsonschema"
)

var schemaActions = []string{"refresh", "quit", "sort"}

// validAgainstSchema reports whether the YAML document conforms to
// FileSchema, as an editor's YAML language server would check it.
func validAgainstSchema(t *testing.T, doc string) error {
	t.Helper()
	s, err := FileSchema(schemaActions)
	if err != nil {
		t.Fatal(err)
	}
	// Through JSON, as a file would be read by an editor.
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back jsonschema.Schema
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	rs, err := back.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	j, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(j, &v); err != nil {
		t.Fatal(err)
	}
	return rs.Validate(v)
}

// The schema accepts what colabdash accepts and refuses a value of the
// wrong shape that colabdash refuses too: an editor's squiggle and
// colabdash's error agree.
func TestFileSchemaAgreesWithTheParser(t *testing.T) {
	full, err := os.ReadFile("testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	o := SettingsOptions{Actions: schemaActions}
	good := []string{string(full), "", "theme: DARK\n", "callBudget: 0\n", "refreshInterval: 1m30s\n",
		"keys:\n  quit: q\n", "defaultRuntimeSpec:\n  variant: VARIANT_CPU\n"}
	for _, doc := range good {
		if _, err := ParseSettings("c.yaml", []byte(doc), o); err != nil {
			t.Fatalf("the parser refuses %q: %v", doc, err)
		}
		if err := validAgainstSchema(t, doc); err != nil {
			t.Errorf("the schema refuses %q: %v", doc, err)
		}
	}
	bad := []string{"refreshInterval: 30\n", "theme: blue\n", "refresh_interval: 30s\n", "autoRenew: maybe\n",
		"callBudget: 2\n", "keys:\n  reload: r\n", "defaultRuntimeSpec:\n  variant: QPU\n",
		"profiles:\n  demo:\n    credentials: adc\n", "profiles:\n  w:\n    credentials: password\n",
		"profiles:\n  w:\n    endpoint: ftp://example.com\n", "defaultRuntimeSpec:\n  size: big\n"}
	for _, doc := range bad {
		if _, err := ParseSettings("c.yaml", []byte(doc), o); err == nil {
			t.Fatalf("the parser accepts %q", doc)
		}
		if err := validAgainstSchema(t, doc); err == nil {
			t.Errorf("the schema accepts %q", doc)
		}
	}
}

// Every key the parser accepts is described in the schema, with nothing
// left over.
func TestFileSchemaHasEveryKey(t *testing.T) {
	s, err := FileSchema(schemaActions)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range topKeys {
		if p := s.Properties[k]; p == nil || p.Description == "" {
			t.Errorf("%s has no described schema", k)
		}
	}
	if got := fmt.Sprint(s.Properties["keys"].PropertyNames.Enum); got != "[refresh quit sort]" {
		t.Errorf("keys: the actions offered are %s, want the keymap's", got)
	}
}
