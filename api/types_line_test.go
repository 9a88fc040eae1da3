package api

import "testing"

// An exception without a value reads as Python prints it: the name alone,
// with no trailing colon.
func TestExecuteErrorLine(t *testing.T) {
	if got := (&ExecuteError{Name: "KeyboardInterrupt"}).Line(); got != "KeyboardInterrupt" {
		t.Errorf("got %q", got)
	}
	if got := (&ExecuteError{Name: "KeyError", Value: "'k'"}).Line(); got != "KeyError: 'k'" {
		t.Errorf("got %q", got)
	}
}
