package forward

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// isGone reports whether f's Gone is closed.
func isGone(f *Forwarder) bool {
	select {
	case <-f.Gone():
		return true
	default:
		return false
	}
}

// A runtime deleted under a forward: the proxy refuses the token (its
// bare 404) and get_runtime says NOT_FOUND. The request gets its 502 with
// the reason, and Gone closes so the forward can stop, whether a request
// or KeepFresh's renewal found it out; any other renewal failure (here:
// PERMISSION_DENIED) leaves it open.
func TestForwardGoneWhenTheRuntimeIsDeleted(t *testing.T) {
	deleted := func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNotFound) }
	notFound := func() (api.ConnectionInfo, error) {
		return api.ConnectionInfo{}, &api.Error{Code: api.NotFound, Message: "runtimes/rt-stub"}
	}

	s := newStub(t, time.Hour, deleted, notFound)
	if isGone(s.w.f) {
		t.Fatal("gone before anything was asked")
	}
	status, body := s.w.get(t, "/api/contents")
	if status != http.StatusBadGateway || !strings.Contains(body, "no longer exists") {
		t.Errorf("GET: %d %q", status, body)
	}
	select {
	case <-s.w.f.Gone():
	case <-time.After(30 * time.Second):
		t.Fatal("Gone did not close after get_runtime's NOT_FOUND")
	}
	var je *proxy.Error
	if err := s.w.f.GoneErr(); !errors.As(err, &je) || !errors.Is(je.Kind, proxy.ErrRuntimeGone) {
		t.Errorf("GoneErr = %v", err)
	}

	// KeepFresh alone (no request) finds it out when the token is due.
	s = newStub(t, 3*time.Minute, deleted, notFound)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.w.f.KeepFresh(ctx, time.Millisecond)
	select {
	case <-s.w.f.Gone():
	case <-time.After(30 * time.Second):
		t.Fatal("Gone did not close after KeepFresh's renewal")
	}

	s = newStub(t, time.Hour, deleted, func() (api.ConnectionInfo, error) {
		return api.ConnectionInfo{}, &api.Error{Code: api.PermissionDenied, Message: "no"}
	})
	if status, _ := s.w.get(t, "/api/contents"); status != http.StatusBadGateway {
		t.Errorf("GET with a refused renewal: %d", status)
	}
	if isGone(s.w.f) || s.w.f.GoneErr() != nil {
		t.Error("gone after a renewal that was only refused")
	}
}
