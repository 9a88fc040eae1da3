package state

import (
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
)

// TestListDoesNotUndoRenewal: a list_runtimes answer read by the server
// before a renewal that finished while the list was in flight must not put
// the superseded proxy token back (found by the soak test); a list started
// after the renewal is taken as it is, even with an earlier expireTime
// (the server may have cut the token short, field case 1).
func TestListDoesNotUndoRenewal(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 17, 0, 0, 0, time.UTC)
	rt := func(tok string, exp time.Time) api.Runtime {
		return api.Runtime{Name: "runtimes/r", ConnectionInfo: &api.ConnectionInfo{Token: tok, ExpireTime: exp}}
	}
	s := New(Config{})
	s.ApplyRuntimes(t0, []api.Runtime{rt("old", t0.Add(10*time.Second))})

	listStarted := t0.Add(time.Second)
	s.UpdateRuntime(t0.Add(2*time.Second), rt("new", t0.Add(time.Hour)))
	in := []api.Runtime{rt("old", t0.Add(10*time.Second))}
	s.ApplyRuntimesStarted(t0.Add(3*time.Second), listStarted, in)
	if got := s.Runtime("runtimes/r").ConnectionInfo.Token; got != "new" {
		t.Fatalf("a list started before the renewal put back token %q", got)
	}
	if in[0].ConnectionInfo.Token != "old" {
		t.Fatalf("ApplyRuntimesStarted modified its argument")
	}
	// A list started after the renewal is the server's word.
	s.ApplyRuntimesStarted(t0.Add(5*time.Second), t0.Add(4*time.Second), []api.Runtime{rt("cut", t0.Add(-time.Second))})
	r := s.Runtime("runtimes/r")
	if r.ConnectionInfo.Token != "cut" {
		t.Fatalf("a later list was not applied: token %q", r.ConnectionInfo.Token)
	}
	if st, _ := r.Token(t0.Add(5*time.Second), 0); st != TokenExpired {
		t.Fatalf("status %v, want EXPIRED", st)
	}
}
