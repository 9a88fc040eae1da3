// Package testkit holds the small helpers that tests across api (and ui)
// repeat: one copy of each, so that a fix to one reaches every test.
// It is test support only: no production package imports it.
package testkit

import (
	"bytes"
	"sync"
)

// SyncBuffer is a bytes.Buffer that several goroutines may write and read
// at once: a logger's or a terminal's output written by background
// goroutines while the test reads it. The zero value is ready to use.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p; it never fails.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
