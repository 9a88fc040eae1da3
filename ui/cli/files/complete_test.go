package files

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/ui/cli/kit/kittest"
	"github.com/colabdash/colabdash/ui/termtext"
)

// Remote path completion offers only names the sanitizer leaves as they
// are: a name holding an ESC sequence, a bidirectional override or a C1
// control is dropped by completeRemote itself, not offered made visible
// ("esc␛[2J.txt", which the shell would put on the command line and cp
// would then not find). Its candidates are read as it returns them,
// before kit.CompletionWriter rewrites anything.
func TestCompletionDropsNamesTermtextWouldChange(t *testing.T) {
	e := kittest.Empty(t)
	if _, err := e.Srv.AddRuntime(api.Runtime{Name: "runtimes/rt-files", ConnectionInfo: &api.ConnectionInfo{}}); err != nil {
		t.Fatal(err)
	}
	entry := func(name string) map[string]any {
		return map[string]any{"name": name, "path": "content/" + name, "type": "file", "size": 1,
			"last_modified": "2026-11-29T18:00:00.000000Z", "created": "2026-11-29T18:00:00.000000Z",
			"writable": true, "mimetype": nil, "format": nil, "content": nil}
	}
	names := []string{"plain.txt", "esc" + colabfake.HostileCSI2J + ".txt", "rlo" + colabfake.HostileRLO + "txt.exe", "c1" + colabfake.HostileC1CSI + ".txt"}
	var entries []any
	for _, n := range names {
		if termtext.Line(n) == n != (n == "plain.txt") {
			t.Fatalf("the fixture's name %q is not what the test means", n)
		}
		entries = append(entries, entry(n))
	}
	body, _ := json.Marshal(map[string]any{"name": "content", "path": "content", "type": "directory", "size": nil,
		"last_modified": "2026-11-29T18:00:00.000000Z", "created": "2026-11-29T18:00:00.000000Z", "writable": true,
		"mimetype": nil, "format": "json", "content": entries})
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Method: http.MethodGet, PathPrefix: "api/contents/content",
		Status: 200, ContentType: "application/json", Body: string(body), Times: -1})
	g := e.Globals()
	g.Settings = &config.Settings{} // as after PersistentPreRunE: the profile is the emulator's
	cmd := &cobra.Command{}
	cmd.SetContext(context.Background())
	got, _ := completeRemote(cmd, g, "rt-files:/content/", false)
	if want := []string{"rt-files:/content/plain.txt"}; !slices.Equal(got, want) {
		t.Fatalf("completion offered %q, want only %q", got, want)
	}
}

// A relative remote path completes in /content, as cp, ls and rm read it:
// "rt-files:pl" offers /content's plain.txt, written as typed (relative),
// not the runtime root's entries.
func TestCompletionOfARelativePathListsContent(t *testing.T) {
	e := kittest.Empty(t)
	if _, err := e.Srv.AddRuntime(api.Runtime{Name: "runtimes/rt-files", ConnectionInfo: &api.ConnectionInfo{}}); err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"name": "content", "path": "content", "type": "directory", "size": nil,
		"last_modified": "2026-11-29T18:00:00.000000Z", "created": "2026-11-29T18:00:00.000000Z", "writable": true,
		"mimetype": nil, "format": "json", "content": []any{map[string]any{"name": "plain.txt", "path": "content/plain.txt",
			"type": "file", "size": 1, "last_modified": "2026-11-29T18:00:00.000000Z", "created": "2026-11-29T18:00:00.000000Z",
			"writable": true, "mimetype": nil, "format": nil, "content": nil}}})
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Method: http.MethodGet, PathPrefix: "api/contents/content",
		Status: 200, ContentType: "application/json", Body: string(body), Times: -1})
	g := e.Globals()
	g.Settings = &config.Settings{}
	cmd := &cobra.Command{}
	cmd.SetContext(context.Background())
	got, _ := completeRemote(cmd, g, "rt-files:pl", false)
	if want := []string{"rt-files:plain.txt"}; !slices.Equal(got, want) {
		t.Fatalf("completion of rt-files:pl offered %q, want %q", got, want)
	}
}
