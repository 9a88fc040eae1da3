// Package clienttest gives tests an MCP client (api/client) of a
// loopback endpoint, such as the emulator's, with the set-up every such
// test repeats. It is test support only: no production package imports
// it, and api/client's own tests, which it imports, build their clients
// in-package.
package clienttest

import (
	"context"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/colabdash/colabdash/api/client"
)

// BearerToken is the OAuth access token the client sends ("test"): the
// emulator accepts any.
const BearerToken = "test"

// New connects an MCP client to endpoint (a loopback URL) with a static
// bearer token, waiting at most 30 s for the session, and closes it when
// the test ends. A failure to connect fails the test.
func New(t testing.TB, endpoint string) *client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	hc := oauth2.NewClient(context.Background(), oauth2.StaticTokenSource(&oauth2.Token{AccessToken: BearerToken}))
	c, err := client.New(ctx, client.Options{Endpoint: endpoint, HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}
