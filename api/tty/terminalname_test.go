package tty

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"testing"
)

// A terminal name the server chose is placed in a URL as one path
// segment: whatever POST /api/terminals answers ("..", "../../x",
// "a/../../b", "%2e%2e", "x?y", "x#y"), every request the terminal sends
// (the WebSocket, the DELETE, with the proxy token) stays below the
// runtime's base path and names at most one segment after the route; "."
// and ".." are not dialled or deleted at all.
func TestHostileTerminalNameStaysBelowTheBase(t *testing.T) {
	for _, name := range []string{"..", ".", "../../evil", "a/../../b", "%2e%2e", "%2e%2e%2fx", "x?token=1", "x#y", "../api/contents/content"} {
		t.Run(url.PathEscape(name), func(t *testing.T) {
			var mu sync.Mutex
			var paths []string
			c := serverClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				paths = append(paths, r.Method+" "+r.URL.EscapedPath()+" ?"+r.URL.RawQuery)
				mu.Unlock()
				switch {
				case r.URL.Path == "/base/colab/tty":
					stockNotFound(w) // a stock server: no colab/tty
				case r.URL.Path == "/base/api/terminals" && r.Method == http.MethodPost:
					b, _ := json.Marshal(map[string]string{"name": name})
					w.Header().Set("Content-Type", "application/json")
					_, _ = w.Write(b)
				default:
					// Jupyter's own 404: no terminal there.
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusNotFound)
					_, _ = io.WriteString(w, `{"message":"Not Found"}`)
				}
			}))
			term := Open(context.Background(), Options{Client: c, Output: newScreen(), Cols: 80, Rows: 24})
			if end, err := waitDone(t, term); err == nil {
				t.Fatalf("end %v without an error", end)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, p := range paths {
				method, rest, _ := strings.Cut(p, " ")
				escaped, query, _ := strings.Cut(rest, " ?")
				decoded, err := url.PathUnescape(escaped)
				if err != nil || !strings.HasPrefix(path.Clean(decoded), "/base/") || query != "" {
					t.Errorf("%s %s left the base path (query %q)", method, escaped, query)
				}
				for _, route := range []string{"/base/terminals/websocket/", "/base/api/terminals/"} {
					if tail, ok := strings.CutPrefix(escaped, route); ok && (strings.Contains(tail, "/") || tail == ".." || tail == ".") {
						t.Errorf("%s %s: the name is not one segment", method, escaped)
					}
				}
			}
			if name == "." || name == ".." {
				for _, p := range paths {
					if strings.Contains(p, "/base/terminals/websocket") || strings.HasPrefix(p, http.MethodDelete) {
						t.Errorf("terminal %q was dialled or deleted: %s", name, p)
					}
				}
			}
		})
	}
}
