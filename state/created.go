package state

import (
	"fmt"

	"github.com/colabdash/colabdash/api"
)

// NotRequestedError is CheckCreated's refusal: create_runtime answered
// with runtime Got ("runtimes/x", as the server sent it) when runtime
// Wanted ("runtimes/run-1a2b3c4d") was asked for.
type NotRequestedError struct {
	Wanted, Got string
}

// Error names both runtimes (the server's name is not sanitized here:
// callers print it through termtext).
func (e *NotRequestedError) Error() string {
	got := e.Got
	if got == "" {
		got = "no runtime name"
	}
	return fmt.Sprintf("create_runtime answered with %s, not the runtime %s that was asked for: colabdash neither uses nor deletes a runtime it did not create",
		got, api.LastSegment(e.Wanted))
}

// CheckCreated is the rule for acting on what create_runtime returned: when
// req named its runtime (RuntimeID), the answer must be exactly that
// runtime ("runtimes/" + RuntimeID); anything else is a runtime colabdash
// did not create, which it must not use, wait for, select or delete. It
// returns nil or a *NotRequestedError. A request without a RuntimeID lets
// Colab choose the name, so any answer is the one it made.
func CheckCreated(req api.CreateRuntimeRequest, got api.Runtime) error {
	if req.RuntimeID == "" {
		return nil
	}
	if want := api.RuntimeName(req.RuntimeID); got.Name != want {
		return &NotRequestedError{Wanted: want, Got: got.Name}
	}
	return nil
}
