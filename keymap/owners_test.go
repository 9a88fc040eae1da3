package keymap

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// owners is the package (its folder in the module) that owns each
// scope's bindings, by KeyMap field: the only one that may match them.
var owners = map[string]string{
	"Dashboard":     "ui",
	"RuntimesTable": "ui/pane/runtimes",
	"SessionsPane":  "ui/pane/sessions",
	"FilesPane":     "ui/overlay/files",
	"Console":       "ui/overlay/console",
	"LogView":       "ui/overlay/logview",
	"HelpView":      "ui/overlay/help",
	"EventLog":      "ui/overlay/events",
	"ProfilePicker": "ui/overlay/profile",
	"Setup":         "ui",
}

// The bindings of each scope are matched only in the package of
// the component that owns them. Every selection of a KeyMap scope field
// (c.Keys.FilesPane, k.Dashboard…) in the module's production code is in
// that scope's owner (or in keymap itself); each owner does select its
// scope, so the table is not stale. The scope fields' names are used for
// nothing else in the module, so a selector with that name is one. Other
// components name another scope's keys in their words with Word and
// FirstKey, which return text, not bindings; tests may press any key.
func TestScopeBindingsAreReferencedOnlyByTheirOwner(t *testing.T) {
	km := reflect.TypeFor[KeyMap]()
	for i := range km.NumField() {
		if km.Field(i).Tag.Get("scope") == "" {
			continue // the plugins, matched through PluginMatch
		}
		if _, ok := owners[km.Field(i).Name]; !ok {
			t.Fatalf("scope field %s has no owner in the test's table", km.Field(i).Name)
		}
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		if rel == "keymap" {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			owner, scoped := owners[sel.Sel.Name]
			switch {
			case !scoped:
			case rel == owner:
				used[sel.Sel.Name] = true
			default:
				t.Errorf("%s: %s's bindings are used in %s, but only %s may match them",
					fset.Position(sel.Pos()), sel.Sel.Name, rel, owner)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for field, owner := range owners {
		if !used[field] {
			t.Errorf("%s never uses the %s bindings it owns: is the owners table stale?", owner, field)
		}
	}
}
