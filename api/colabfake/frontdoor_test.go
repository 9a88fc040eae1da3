package colabfake

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// The defaults of the HTTP-level faults a test leaves unset: what a test
// of a client's handling gets when it asks only for the kind.

// FaultHTTPStatus without a Status is an HTTP 500 with the body as given.
func TestFaultHTTPStatusDefaultsTo500(t *testing.T) {
	s, ep, _ := start(t, Options{Stateless: true, JSONResponse: true})
	s.Inject(Fault{Kind: FaultHTTPStatus, Tool: "list_runtimes", Body: "backend down"})
	resp, body, err := rawPost(t, ep, toolsCall("list_runtimes", ""), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusInternalServerError || string(body) != "backend down" ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("HTTP %d %q %q, want 500 text/plain \"backend down\"", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
}

// FaultOversized without a Size is a valid reply whose text block holds
// 8 MiB, echoing the request's id.
func TestFaultOversizedDefaultsTo8MiB(t *testing.T) {
	s, ep, _ := start(t, Options{Stateless: true, JSONResponse: true})
	s.Inject(Fault{Kind: FaultOversized, Tool: "list_runtimes"})
	_, body, err := rawPost(t, ep, toolsCall("list_runtimes", ""), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	var rpc struct {
		ID     int `json:"id"`
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &rpc); err != nil || rpc.ID != 7 || len(rpc.Result.Content) != 1 {
		t.Fatalf("reply of %d bytes: id %d, %d blocks, %v", len(body), rpc.ID, len(rpc.Result.Content), err)
	}
	if n := len(rpc.Result.Content[0].Text); n != 8<<20 {
		t.Fatalf("text block of %d bytes, want 8 MiB", n)
	}
}
