package ops

import (
	"context"
	"net/http"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/client"
	"github.com/colabdash/colabdash/api/colabfake"
)

// bearer sends a fixed bearer token, which the emulator accepts.
type bearer struct{}

func (bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer test")
	return http.DefaultTransport.RoundTrip(r)
}

// emulator starts api/colabfake on loopback with o (the demo seed when o
// names none) and returns it with a client that does not retry by
// itself.
func emulator(t *testing.T, o colabfake.Options) (*colabfake.Server, api.Service) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if o.Seed == "" {
		o.Seed = colabfake.SeedDemo
	}
	srv, ep, err := colabfake.Start(ctx, "127.0.0.1:0", o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	svc, err := client.New(ctx, client.Options{Endpoint: ep, MaxAttempts: 1, HTTPClient: &http.Client{Transport: bearer{}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return srv, svc
}

// firstRuntime is the first runtime the emulator lists.
func firstRuntime(t *testing.T, srv *colabfake.Server) api.Runtime {
	t.Helper()
	rts := srv.Runtimes()
	if len(rts) == 0 {
		t.Fatal("the emulator lists no runtime")
	}
	return rts[0]
}
