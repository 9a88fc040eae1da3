package api

import (
	"encoding/json"
	"testing"
)

// Every integer of a decoded reply takes any JSON number: an execution
// count or a rich output's index written as a float (Python's
// json.dumps), and an error's code written as 404.0, are read, not a
// reason to refuse the reply.
func TestRepliesTakeIntegralFloats(t *testing.T) {
	var r ExecuteCodeResult
	if err := json.Unmarshal([]byte(`{"executionCount":3.0,"richOutputs":[{"index":1e0,"filePath":"/tmp/o.png"}]}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.ExecutionCount != 3 || len(r.RichOutputs) != 1 || r.RichOutputs[0].Index != 1 {
		t.Errorf("result = %+v", r)
	}
	e := ErrorFromText(`{"error":{"code":404.0,"message":"no such runtime"}}`)
	if e.Code != NotFound || e.HTTPStatus != 404 || e.Message != "no such runtime" {
		t.Errorf("error = %+v", e)
	}
}
