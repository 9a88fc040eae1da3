// Package opstest gives the tests of the operations layer (ui/ops) and of
// the front ends built on it an emulator (api/colabfake) to talk to: one
// on loopback with an MCP client for it, both closed when the test ends;
// and Application Default Credentials of their own (ADC).
package opstest

import (
	"context"
	"net/http"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/client"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/colabfaketest"
)

// Token is the bearer token the client sends; the emulator accepts any
// non-empty one.
const Token = "fake-oauth-token"

// bearer sends Token with every request.
type bearer struct{}

func (bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+Token)
	return http.DefaultTransport.RoundTrip(r)
}

// Emulator starts api/colabfake on 127.0.0.1 with o and returns it with a
// client of its MCP endpoint that sends Token. co sets the client's
// retries and waits; its Endpoint and HTTPClient are filled in. Both end
// with t; a failure to start either fails t.
func Emulator(t testing.TB, o colabfake.Options, co client.Options) (*colabfake.Server, api.Service) {
	t.Helper()
	srv, ep := colabfaketest.Start(t, o)
	return srv, Client(t, ep, bearer{}, co)
}

// Client is an MCP client of the endpoint ep that sends its requests
// through rt, with co's retries, waits and redactor (its Endpoint and
// HTTPClient are filled in). It is closed when t ends; a failure to make
// it fails t.
func Client(t testing.TB, ep string, rt http.RoundTripper, co client.Options) *client.Client {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	co.Endpoint, co.HTTPClient = ep, &http.Client{Transport: rt}
	c, err := client.New(ctx, co)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}
