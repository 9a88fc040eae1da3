package client

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/colabdash/colabdash/api"
)

// decodeSeeds are tool results as the Colab MCP server (or a broken one)
// sends them: {} and empty lists, absent connectionInfo, the
// expireTime forms seen in the field, unknown enum values, wrong types.
var decodeSeeds = []string{
	`{"runtimes":[{"name":"runtimes/r-abc","runtimeSpec":{"variant":"VARIANT_GPU","accelerator":"T4","shape":"SHAPE_STANDARD"},"connectionInfo":{"url":"https://x","token":"t","expireTime":"2026-11-29T18:00:00Z"}}]}`,
	`{"runtimes":[]}`,
	`{}`,
	`{"runtimes":[{"name":"runtimes/r-abc"}]}`,
	`{"runtimes":[{"runtimeSpec":{"variant":"VARIANT_QPU"}}]}`,
	`{"runtimes":[{"name":"runtimes/r","connectionInfo":{"expireTime":"soon"}}]}`,
	`{"runtimes":"not a list"}`,
	`{"runtimes":[{"name":42}]}`,
	`{"tier":"SUBSCRIPTION_TIER_ULTRA"}`,
	`{"runtimeSpecs":[{"key":{"variant":"VARIANT_GPU","accelerator":"H100","shape":"SHAPE_STANDARD"},"eligible":true}]}`,
	`{"name":"operations/1","done":true,"error":{"code":9,"details":[{"reason":"TOO_MANY_ACTIVE_RUNTIMES"}]}}`,
	`{"name":"operations/1","done":true,"response":{"name":"runtimes/r-new"}}`,
	`{"sessions":[{"name":"runtimes/r/sessions/s"}]}`,
	`{"stdout":"hi\n","executionCount":1,"executionError":{"name":"ValueError","value":"x","traceback":["\u001b[0;31m"]}}`,
	`this is not JSON`,
	`<!DOCTYPE html><html><body>Error 500</body></html>`,
	``,
	`null`,
	`[1,2,3]`,
}

// FuzzDecode feeds any tool result (as structuredContent or as the text
// block) to decode for every result type the tools read, and any isError
// text to toolError: no panic; a decode failure is one clean INTERNAL
// line naming the tool that never shows the raw reply; a tool error's text
// is shown folded onto one clean line.
func FuzzDecode(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add(true, s)
		f.Add(false, s)
	}
	f.Fuzz(func(t *testing.T, structured bool, payload string) {
		res := &mcp.CallToolResult{}
		if structured {
			var v any
			if json.Unmarshal([]byte(payload), &v) != nil {
				return
			}
			res.StructuredContent = v
		} else {
			res.Content = []mcp.Content{&mcp.TextContent{Text: payload}}
		}
		outs := []any{
			&struct {
				Runtimes []api.Runtime `json:"runtimes"`
			}{},
			&api.Runtime{},
			&api.Subscription{},
			&struct {
				RuntimeSpecs []api.RuntimeSpec `json:"runtimeSpecs"`
			}{},
			&api.Operation{},
			&struct {
				Sessions []api.Session `json:"sessions"`
			}{},
			&api.ExecuteCodeResult{},
		}
		for _, out := range outs {
			e := decode("list_runtimes", res, out)
			if e == nil {
				continue
			}
			checkClean(t, payload, e)
			if len(payload) > 60 && strings.Contains(e.Error(), payload) {
				t.Fatalf("decode error embeds the raw reply: %q", e.Error())
			}
			if e.Code != api.Internal || e.Tool != "list_runtimes" {
				t.Fatalf("%q: decode error %+v, want INTERNAL from list_runtimes", payload, e)
			}
		}
		e := toolError("get_runtime", payload)
		checkClean(t, payload, e)
		if e.Tool != "get_runtime" || e.Message == "" {
			t.Fatalf("%q: toolError = %+v", payload, e)
		}
	})
}

func checkClean(t *testing.T, payload string, e *api.Error) {
	t.Helper()
	line := e.Error()
	for _, r := range line {
		if unicode.IsControl(r) {
			t.Fatalf("%q: error line has control character %U: %q", payload, r, line)
		}
	}
	low := strings.ToLower(line)
	if strings.Contains(low, "<html") || strings.Contains(low, "<!doctype") {
		t.Fatalf("%q: error line shows HTML: %q", payload, line)
	}
}
