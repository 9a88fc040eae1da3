package proxy

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
)

// A kernel id from /api/sessions is one path segment of the interrupt's
// URL: "/" and "?" are escaped, and "." or ".." is refused before any
// request leaves.
func TestInterruptKernelIDIsOneSegment(t *testing.T) {
	var mu sync.Mutex
	var got []string
	c := serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.EscapedPath()+"?"+r.URL.RawQuery)
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	ctx := context.Background()
	for _, id := range []string{"..", "."} {
		err := c.Interrupt(ctx, id)
		var e *Error
		if !errors.As(err, &e) || e.Kind != ErrUnsafeName {
			t.Errorf("kernel %q: %v, want ErrUnsafeName", id, err)
		}
	}
	if err := c.Interrupt(ctx, "../../api/contents/x?y#z"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0] != "/api/kernels/..%2F..%2Fapi%2Fcontents%2Fx%3Fy%23z/interrupt?" {
		t.Errorf("requests: %q", got)
	}
}
