package colabfake

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/colabdash/colabdash/api"
)

// list_sessions racing create_session and delete_runtime on the same
// runtime (run with -race): every answer is either NOT_FOUND (the runtime
// is gone) or the sessions of the runtime as it was at one instant, which
// always include the session it was created with, never the empty list
// of a runtime deleted between looking it up and listing it.
func TestListSessionsConcurrentWithCreateAndDelete(t *testing.T) {
	s := New(Options{Now: NewClock(t0).Now})
	t.Cleanup(func() { _ = s.Close() })
	ctx := context.Background()
	for round := range 150 {
		name := fmt.Sprintf("runtimes/rt-race%03d", round)
		mustAdd(t, s, api.Runtime{Name: name, ConnectionInfo: &api.ConnectionInfo{}})
		if _, e := s.createSession(ctx, createSessionIn{Parent: name, SessionID: "first"}, false); e != nil {
			t.Fatal(e.msg)
		}
		start := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(3)
		go func() { // lists until the runtime is gone
			defer wg.Done()
			<-start
			for {
				v, e := s.listSessions(ctx, parentIn{Parent: name}, false)
				if e != nil {
					if e.code != api.NotFound {
						t.Errorf("%s: list_sessions: %s %s", name, e.code, e.msg)
					}
					return
				}
				got := v.(struct {
					Sessions []api.Session `json:"sessions,omitempty"`
				}).Sessions
				if len(got) == 0 || got[0].Name != name+"/sessions/first" {
					t.Errorf("%s: list_sessions answered %v: neither NOT_FOUND nor the runtime's sessions", name, got)
					return
				}
			}
		}()
		go func() { // opens sessions meanwhile
			defer wg.Done()
			<-start
			for i := range 10 {
				_, _ = s.createSession(ctx, createSessionIn{Parent: name, SessionID: fmt.Sprintf("s-%d", i)}, false)
			}
		}()
		go func() {
			defer wg.Done()
			<-start
			if _, e := s.deleteRuntime(ctx, deleteRuntimeIn{Name: name}, false); e != nil {
				t.Errorf("delete_runtime %s: %s", name, e.msg)
			}
		}()
		close(start)
		wg.Wait()
		if t.Failed() {
			return
		}
	}
}
