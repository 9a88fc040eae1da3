package colabfake

import (
	"strings"
	"testing"
)

// TestFrontDoorSecurity: the emulator answers 401 without a bearer token
// (unless NoAuth, used only for the MCP conformance suite) and 403 for a
// non-loopback Host or Origin in both modes (DNS rebinding protection).
func TestFrontDoorSecurity(t *testing.T) {
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, noAuth := range []bool{false, true} {
		_, ep, _ := start(t, Options{NoAuth: noAuth, Stateless: true, JSONResponse: true})
		cases := []struct {
			name     string
			withAuth bool
			hdr      map[string]string
			want     int
		}{
			{"bearer, loopback", true, nil, 200},
			{"no bearer", false, nil, map[bool]int{false: 401, true: 200}[noAuth]},
			{"evil Host", true, map[string]string{"Host": "evil.example.com"}, 403},
			{"evil Host, no bearer", false, map[string]string{"Host": "evil.example.com:8089"}, 403},
			{"evil Origin", true, map[string]string{"Origin": "http://evil.example.com"}, 403},
			{"evil Origin, no bearer", false, map[string]string{"Origin": "https://127.0.0.1.evil.example.com"}, 403},
			{"localhost Host and Origin", true, map[string]string{"Host": "localhost:1", "Origin": "http://[::1]:5"}, 200},
			// Every loopback form colabdash's client sends a token to
			// over http (safehttp.IsLoopbackHost) is answered…
			{"LOCALHOST Host", true, map[string]string{"Host": "LOCALHOST:1"}, 200},
			{"IPv4-mapped Host", true, map[string]string{"Host": "[::ffff:127.0.0.1]:1", "Origin": "http://[::ffff:127.0.0.1]:1"}, 200},
			{"127/8 Host", true, map[string]string{"Host": "127.8.9.10:1"}, 200},
			// …and the names it refuses are refused here too.
			{"localhost. Host", true, map[string]string{"Host": "localhost.:1"}, 403},
			{"localhost.localdomain Host", true, map[string]string{"Host": "localhost.localdomain"}, 403},
		}
		for _, c := range cases {
			for _, body := range []string{ping, initialize} {
				resp, b, err := rawPost(t, ep, body, !c.withAuth, c.hdr)
				if err != nil {
					t.Fatal(err)
				}
				if resp.StatusCode != c.want {
					t.Errorf("NoAuth=%v %s: HTTP %d %s, want %d", noAuth, c.name, resp.StatusCode, b, c.want)
				}
				if c.want == 401 && !strings.Contains(resp.Header.Get("WWW-Authenticate"), "Bearer") {
					t.Errorf("%s: 401 without WWW-Authenticate: Bearer", c.name)
				}
			}
		}
	}
}
