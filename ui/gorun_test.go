package ui

import "testing"

// goRun runs f in its own goroutine, the way tea.Program runs every
// command (f is usually a tea.Cmd, T then tea.Msg), and returns a channel
// that receives f's result once. A nil f (an update that started nothing)
// fails the test here, on the test goroutine, saying which command was
// nil: calling it inside the goroutine would panic and take the whole ui
// test binary down, hiding every later test's result.
func goRun[T any](t testing.TB, what string, f func() T) <-chan T {
	t.Helper()
	if f == nil {
		t.Fatalf("%s: no command to run (nil)", what)
	}
	done := make(chan T, 1)
	go func() { done <- f() }()
	return done
}
