package tty

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
)

// echoCounter counts output bytes and signals each write.
type echoCounter struct {
	n  atomic.Int64
	ch chan struct{}
}

func (e *echoCounter) Write(p []byte) (int, error) {
	e.n.Add(int64(len(p)))
	select {
	case e.ch <- struct{}{}:
	default:
	}
	return len(p), nil
}

// BenchmarkKeystrokeEcho is the time from a keystroke written to the
// Terminal to its echo arriving back, through the emulator's runtime
// proxy and its emulated shell on loopback (the proxy adds no latency of
// its own, so this is colabdash's and the emulator's share: the budget in
// .ci/run is 5 ms on top of the network's round trip, here zero).
func BenchmarkKeystrokeEcho(b *testing.B) {
	r := newRig(b, colabfake.Options{})
	out := &echoCounter{ch: make(chan struct{}, 1)}
	term := Open(context.Background(), Options{Client: r.client(b), Output: out})
	defer term.Close()
	select {
	case <-term.Connected():
	case <-term.Done():
		b.Fatal(term.Result())
	case <-time.After(wait):
		b.Fatalf("not connected within %v", wait)
	}
	deadline := time.After(wait)
	for out.n.Load() < int64(len(colabfake.TTYPrompt)) {
		select {
		case <-out.ch:
		case <-deadline:
			b.Fatalf("no prompt within %v", wait)
		}
	}
	key := []byte{'a'}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		want := out.n.Load() + 1
		if _, err := term.Write(key); err != nil {
			b.Fatal(err)
		}
		for out.n.Load() < want {
			select {
			case <-out.ch:
			case <-term.Done():
				b.Fatal(term.Result())
			}
		}
	}
}
