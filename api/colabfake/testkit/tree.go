package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteTree writes files (slash-separated name relative to root: content)
// below root, mode 0644, creating root and every missing parent (0755),
// and returns root. A failure fails the test.
func WriteTree(t testing.TB, root string, files map[string]string) string {
	t.Helper()
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}
