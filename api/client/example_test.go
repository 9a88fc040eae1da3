package client_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"golang.org/x/oauth2"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/client"
)

// Wiring the client: the HTTP client adds the auth headers (here a static
// token; the app uses api/auth), OnUnauthenticated forces one token
// refresh, OnRetry feeds a "retrying 2/5 in 8s" status line.
func Example() {
	ctx := context.Background()
	hc := oauth2.NewClient(ctx, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "ya29.example"}))
	c, err := client.New(ctx, client.Options{
		HTTPClient:        hc,
		OnUnauthenticated: func(ctx context.Context) bool { return false },
		OnRetry: func(ev client.RetryEvent) {
			fmt.Fprintf(os.Stderr, "%s: retrying %d/%d in %s\n", ev.Tool, ev.Attempt, ev.MaxAttempts, ev.Wait)
		},
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	// New did not touch the network; the first call connects.
	var svc api.Service = c
	_ = svc
}
