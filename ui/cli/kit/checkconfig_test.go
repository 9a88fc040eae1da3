package kit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// config --check names every bad line of the file, each on its own line
// with its number, and still exits 2.
func TestCheckConfigFileNamesEveryBadLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte("theme: blue\nrefreshInterval: 1x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var ee *ExitError
	if err := CheckConfigFile(path); !errors.As(err, &ee) || ee.Code != ExitUsage {
		t.Fatalf("CheckConfigFile = %v, want exit 2", err)
	}
	lines := strings.Split(ee.Msg, "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "config "+path+":1: theme") ||
		!strings.HasPrefix(lines[1], "colabdash: config "+path+":2: refreshInterval") {
		t.Errorf("message:\n%s\nwant line 1's theme, then line 2's refreshInterval, each on its own line", ee.Msg)
	}
	if err := os.WriteFile(path, []byte("theme: dark\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CheckConfigFile(path); err != nil {
		t.Errorf("a good file: %v", err)
	}
}
