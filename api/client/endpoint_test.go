package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A refused connection names the endpoint the user gave.
func TestUnreachableEndpointIsNamed(t *testing.T) {
	endpoint := "http://" + refusedAddr(t) + "/mcp"
	c, _ := newClient(t, endpoint, func(o *Options) { o.MaxAttempts = 1 })
	_, err := c.ListRuntimes(context.Background())
	e := asAPI(t, err)
	if want := "cannot reach " + endpoint + ": connection refused"; e.Message != want {
		t.Errorf("Message = %q, want %q", e.Message, want)
	}
}

// An HTTP 404 from the endpoint itself (a wrong path) says to check the
// endpoint, and the status appears once.
func TestWrongEndpointPath(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	endpoint := srv.URL + "/mpc"
	c, _ := newClient(t, endpoint, func(o *Options) { o.MaxAttempts = 1 })
	_, err := c.ListRuntimes(context.Background())
	e := asAPI(t, err)
	want := "the MCP endpoint " + endpoint + " answered HTTP 404: check the endpoint URL"
	if !strings.Contains(e.Error(), want) {
		t.Errorf("Error() = %q, want it to contain %q", e.Error(), want)
	}
	if n := strings.Count(e.Error(), "HTTP 404"); n != 1 {
		t.Errorf("Error() = %q names HTTP 404 %d times", e.Error(), n)
	}
}
