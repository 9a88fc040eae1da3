package pyemu

import (
	"strings"
	"testing"
)

// Nesting is bounded: a cell of ten thousand parentheses is not
// evaluated (and does not exhaust the stack), a hundred are.
func TestEvalIntDepth(t *testing.T) {
	if v, ok := evalInt(strings.Repeat("(", 100) + "6*7" + strings.Repeat(")", 100)); !ok || v != "42" {
		t.Errorf("100 parentheses: %q %t, want 42", v, ok)
	}
	if v, ok := evalInt(strings.Repeat("(", 10000) + "1" + strings.Repeat(")", 10000)); ok {
		t.Errorf("10,000 parentheses evaluated to %q", v)
	}
	if v, ok := evalInt(strings.Repeat("-", 10000) + "1"); ok {
		t.Errorf("10,000 signs evaluated to %q", v)
	}
}
