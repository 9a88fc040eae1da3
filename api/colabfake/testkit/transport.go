package testkit

import (
	"net/http"
	"sync/atomic"
)

// CountingTransport is an http.RoundTripper that sends every request
// through http.DefaultTransport and counts them: a test gives it where a
// caller's transport is an option and checks that the option carried the
// requests. The zero value is ready to use.
type CountingTransport struct{ n atomic.Int64 }

// RoundTrip counts r and sends it.
func (c *CountingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

// Requests is how many requests RoundTrip was given.
func (c *CountingTransport) Requests() int64 { return c.n.Load() }
