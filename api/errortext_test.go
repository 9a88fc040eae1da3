package api

import (
	"strings"
	"testing"
)

// Error() names the HTTP status once, even when the message (such as
// DefaultMessage's "Not found (HTTP 404)") already does.
func TestErrorNamesHTTPStatusOnce(t *testing.T) {
	for _, e := range []*Error{
		{Tool: "list_runtimes", Code: NotFound, HTTPStatus: 404, Message: DefaultMessage(NotFound, 404)},
		ParseHTTPError(502, "", []byte("<html>bad gateway</html>")),
		{Code: Unavailable, HTTPStatus: 503, Message: "backend down"},
	} {
		if n := strings.Count(e.Error(), "HTTP "); n != 1 {
			t.Errorf("Error() = %q names the HTTP status %d times", e.Error(), n)
		}
	}
}
