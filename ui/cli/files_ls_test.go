package cli

import (
	"encoding/json"
	"net/http"
	"net/url"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/colabfaketest"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/ui/cli/files"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// ls of a large directory prints every entry, one line
// each in the server's order, its sizes aligned; --json has them all;
// the directory shows in /content like any other.
func TestLsLargeDirectory(t *testing.T) {
	const n = 3000
	home := isolate(t)
	srv, ep := colabfaketest.Start(t, colabfake.Options{ManyFiles: n, TokenTTL: 24 * time.Hour})
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

// Field trial: `ls RUNTIME:/nope --json` said "runtime": "" and "path": ""
// although the runtime had been resolved; README says a failure's fields
// are filled as far as the command got: the path once read, the runtime
// once resolved.
func TestLsJSONFailureSaysHowFarItGot(t *testing.T) {
	_, flags := filesEmu(t)
	for _, tc := range []struct {
		arg, runtime, path string
		code               int
	}{
		{"rt-fil:/nope", "runtimes/rt-files", "/nope", files.ExitNoSuchFile},
		{"rt-zz:/content/x", "", "/content/x", kit.ExitNotFound},
	} {
		code, out, errs := runCLI(t, append([]string{"ls", tc.arg, "--json"}, flags...)...)
		var rep files.LsJSON
		if err := json.Unmarshal([]byte(out), &rep); err != nil || code != tc.code || rep.OK || rep.Error == nil || rep.Error.Code != kit.CodeWord(tc.code) ||
			string(rep.Runtime) != tc.runtime || rep.Path != tc.path || rep.Entries == nil {
			t.Errorf("ls %s --json: exit %d, stdout %s, stderr %q; want runtime %q, path %q", tc.arg, code, out, errs, tc.runtime, tc.path)
		}
	}
}

// lsJSONEmu is an emulator with rt-big holding /content/many (n synthetic
// entries) and /content (names JSON and the terminal must escape).
func lsJSONEmu(t *testing.T, n int) (*colabfake.Server, []string) {
	t.Helper()
	home := isolate(t)
	srv, ep := colabfaketest.Start(t, colabfake.Options{ManyFiles: n, TokenTTL: 24 * time.Hour})
	rt, err := srv.AddRuntime(api.Runtime{Name: "runtimes/rt-big", ConnectionInfo: &api.ConnectionInfo{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{`a<b>&"c\d.txt`, "über €.txt", "bidi\u202eevil.txt", "c1\u0085x.txt", "plain.txt"} {
		req, _ := http.NewRequest(http.MethodPut, rt.ConnectionInfo.URL+"api/contents/content/"+url.PathEscape(name),
			strings.NewReader(`{"type": "file", "format": "text", "content": "x"}`))
		req.Header.Set(jupyter.TokenHeader, rt.ConnectionInfo.Token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode/100 != 2 {
			t.Fatalf("PUT %q: %v %v", name, resp, err)
		}
		resp.Body.Close()
	}
	return srv, []string{"--endpoint", ep, "--access-token-file", writeFile(t, filepath.Join(home, "token"), "fake-oauth-token")}
}

// ls --json, written as the listing arrives, is the document --jq sees
// (which collects the listing and encodes it with encoding/json): the
// same value, HTML characters, C1 and bidirectional controls escaped;
// each entry on a line of its own (a script can follow the listing line
// by line), "ok" last.
func TestLsJSONStreamedIsTheWholeDocument(t *testing.T) {
	const n = 3000 // several blocks of output
	_, flags := lsJSONEmu(t, n)
	for _, dir := range []string{"rt-big:/content/many", "rt-big:/content", "rt-big:/content/plain.txt"} {
		code, out, errs := runCLI(t, append([]string{"ls", dir, "--json"}, flags...)...)
		var rep files.LsJSON
		if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || !rep.OK || rep.Error != nil {
			t.Fatalf("ls %s --json: exit %d, %v, stderr %q, stdout %.300s", dir, code, err, errs, out)
		}
		if !strings.HasPrefix(out, "{\n  \"runtime\": \"runtimes/rt-big\",\n  \"path\": ") {
			t.Errorf("ls %s --json does not start with its runtime and path: %.80q", dir, out)
		}
		lines := strings.Split(out, "\n")
		start := slices.Index(lines, `  "entries": [`)
		if start < 0 || len(lines) < start+len(rep.Entries)+2 {
			t.Fatalf("ls %s --json: no entries array of %d lines:\n%.400s", dir, len(rep.Entries), out)
		}
		for i, e := range rep.Entries {
			var one any
			line := strings.TrimSuffix(strings.TrimPrefix(lines[start+1+i], "    "), ",")
			if err := json.Unmarshal([]byte(line), &one); err != nil || one.(map[string]any)["path"] != e.Path {
				t.Fatalf("entry %d is not one line of its own: %q (%v)", i, lines[start+1+i], err)
			}
		}
		if !strings.HasSuffix(out, "  ],\n  \"ok\": true\n}\n") {
			t.Errorf("ls %s --json does not end with its entries, then \"ok\": %q", dir, out[max(len(out)-60, 0):])
		}
		_, jq, _ := runCLI(t, append([]string{"ls", dir, "--jq", "."}, flags...)...)
		var a, b any
		if json.Unmarshal([]byte(out), &a) != nil || json.Unmarshal([]byte(jq), &b) != nil || !reflect.DeepEqual(a, b) {
			t.Errorf("ls %s: --jq . and --json differ", dir)
		}
		switch dir {
		case "rt-big:/content/many":
			if len(rep.Entries) != n || rep.Type != "directory" || rep.Entries[n-1].Path != "/content/many/"+colabfake.SyntheticName(n) {
				t.Errorf("many: %d entries, type %q", len(rep.Entries), rep.Type)
			}
		case "rt-big:/content":
			for _, esc := range []string{`a\u003cb\u003e\u0026\"c\\d.txt`, `bidi\u202eevil.txt`, `c1\u0085x.txt`, "über €.txt"} {
				if !strings.Contains(out, esc) {
					t.Errorf("odd: %q not in the document", esc)
				}
			}
		default:
			if rep.Type != "file" || len(rep.Entries) != 1 {
				t.Errorf("a file: type %q, %d entries", rep.Type, len(rep.Entries))
			}
		}
	}
}

// A listing cut midway, after entries were written: stdout still holds
// exactly one JSON document, the entries that arrived and then "ok":
// false and the error (the failure's exit code and stderr line); cut
// before its first entry, the failure document has no entries and no type.
func TestLsJSONFailsMidwayAsOneDocument(t *testing.T) {
	const n = 3000
	srv, flags := lsJSONEmu(t, n)
	for _, tc := range []struct {
		after int64
		some  bool
	}{{200_000, true}, {10, false}} {
		srv.ClearProxyFaults()
		srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyCut, Method: http.MethodGet, PathPrefix: "api/contents/content/many", After: tc.after, Times: -1})
		code, out, errs := runCLI(t, append([]string{"ls", "rt-big:/content/many", "--json"}, flags...)...)
		dec := json.NewDecoder(strings.NewReader(out))
		var rep files.LsJSON
		err := dec.Decode(&rep)
		if err != nil || dec.More() || code == 0 || rep.OK || rep.Error == nil || rep.Error.Code != kit.CodeWord(code) || !strings.Contains(errs, rep.Error.Message) {
			t.Fatalf("cut after %d bytes: exit %d, %v, error %+v, stderr %q, stdout %.300s", tc.after, code, err, rep.Error, errs, out)
		}
		if got := len(rep.Entries) > 0 && len(rep.Entries) < n && rep.Type == "directory"; got != tc.some || !tc.some && (rep.Type != "" || rep.Entries == nil) {
			t.Errorf("cut after %d bytes: %d entries, type %q", tc.after, len(rep.Entries), rep.Type)
		}
	}
}
