package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/files"
)

// ls of a large directory prints every entry, one line
// each in the server's order, its sizes aligned; --json has them all;
// the directory shows in /content like any other.
func TestLsLargeDirectory(t *testing.T) {
	const n = 3000
	home := isolate(t)
	srv, ep, err := colabfake.Start(context.Background(), "127.0.0.1:0", colabfake.Options{ManyFiles: n, TokenTTL: 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	if _, err := srv.AddRuntime(api.Runtime{Name: "runtimes/rt-big", ConnectionInfo: &api.ConnectionInfo{}}); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--endpoint", ep, "--access-token-file", writeFile(t, filepath.Join(home, "token"), "fake-oauth-token")}
	code, out, errs := runCLI(t, append([]string{"ls", "rt-big:/content/many"}, flags...)...)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || len(lines) != n {
		t.Fatalf("ls: exit %d, %d lines, stderr %q", code, len(lines), errs)
	}
	for _, i := range []int{0, n - 1} {
		if want := "     0 B  "; !strings.HasPrefix(lines[i], want) || !strings.HasSuffix(lines[i], "  "+colabfake.SyntheticName(i+1)) {
			t.Fatalf("line %d = %q", i+1, lines[i])
		}
	}
	code, out, _ = runCLI(t, append([]string{"ls", "rt-big:/content/many", "--json"}, flags...)...)
	var rep files.LsJSON
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || len(rep.Entries) != n || rep.Entries[n-1].Path != "/content/many/"+colabfake.SyntheticName(n) {
		t.Fatalf("ls --json: exit %d, %d entries", code, len(rep.Entries))
	}
	if code, out, _ := runCLI(t, append([]string{"ls", "rt-big"}, flags...)...); code != 0 || !strings.Contains(out, "  many/") {
		t.Fatalf("ls /content: exit %d, %q", code, out)
	}
}
