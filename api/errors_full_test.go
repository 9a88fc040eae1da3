package api

import (
	"strings"
	"testing"
)

// Full keeps the message Error cuts at 200 runes.
func TestErrorFullKeepsTheMessage(t *testing.T) {
	msg := strings.Repeat("word ", 50) + "END"
	e := &Error{Code: ResourceExhausted, Tool: ToolCreateRuntime, Message: msg}
	if strings.Contains(e.Error(), "END") || !strings.Contains(e.Full(), "END") {
		t.Fatalf("Error %q\nFull %q", e.Error(), e.Full())
	}
	if !strings.HasPrefix(e.Full(), "create_runtime: RESOURCE_EXHAUSTED: word word") {
		t.Fatalf("Full %q", e.Full())
	}
}
