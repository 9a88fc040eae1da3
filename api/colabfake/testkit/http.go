package testkit

import (
	"io"
	"net/http"
	"testing"
)

// Do sends req with http.DefaultClient and returns the reply's status
// code and whole body (tests reach loopback servers only). A request that
// gets no reply fails the test.
func Do(t testing.TB, req *http.Request) (status int, body string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
