package monitor

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake/testkit"
)

// serve answers every request with status and body (JSON).
func serve(t *testing.T, status int, body string) api.ConnectionInfo {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return api.ConnectionInfo{URL: srv.URL + "/proxy/rt/", Token: "tok-reply-test"}
}

// A reply of exactly MaxReply bytes is read; one byte more is refused.
func TestReplyOfExactlyMaxReplyIsRead(t *testing.T) {
	c := New(Options{})
	head, tail := `{"disks":[],"pad":"`, `"}`
	exact := head + strings.Repeat("x", MaxReply-len(head)-len(tail)) + tail
	if _, err := c.Resources(ctx(t), serve(t, 200, exact)); err != nil {
		t.Errorf("a reply of %d bytes: %v", len(exact), err)
	}
	over := head + strings.Repeat("x", MaxReply+1-len(head)-len(tail)) + tail
	if _, err := c.Resources(ctx(t), serve(t, 200, over)); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "larger than 1 MiB") {
		t.Errorf("a reply of %d bytes: %v", len(over), err)
	}
}

// Any 2xx status with the JSON is a reply; the statuses around it are
// failures that name the status.
func TestEvery2xxStatusIsAReply(t *testing.T) {
	c := New(Options{})
	for _, status := range []int{200, 203, 299} {
		if r, err := c.Resources(ctx(t), serve(t, status, `{"disks":[{"filesystem":{"label":"kernel","totalBytes":10,"usedBytes":4}}]}`)); err != nil || len(r.Disks) != 1 || r.Disks[0].UsedBytes != 4 {
			t.Errorf("HTTP %d: %+v, %v", status, r, err)
		}
	}
	for _, status := range []int{300, 500} {
		_, err := c.Resources(ctx(t), serve(t, status, `{"disks":[]}`))
		var e *Error
		if !errors.As(err, &e) || e.Status != status || err.Error() != fmt.Sprintf("resources unavailable: HTTP %d", status) {
			t.Errorf("HTTP %d: %v", status, err)
		}
	}
}

// A connectionInfo.url that is not an http(s) URL with a host is refused
// before anything is sent.
func TestUnusableConnectionURL(t *testing.T) {
	c := New(Options{})
	for _, u := range []string{"", "ftp://127.0.0.1/proxy/", "https:///proxy/", "http://[::1/proxy/", "127.0.0.1:8080/proxy/"} {
		_, err := c.Kernels(ctx(t), api.ConnectionInfo{URL: u, Token: "tok"})
		if want := "kernels unavailable: connectionInfo.url is not an http(s) URL"; !errors.Is(err, ErrUnavailable) || err.Error() != want {
			t.Errorf("URL %q: %v, want %q", u, err, want)
		}
	}
}

// The proxy token sent is learnt by the redactor the caller shares, so
// no other output shows it.
func TestTokenSentIsRedactedEverywhere(t *testing.T) {
	red := &api.Redactor{}
	c := New(Options{Redactor: red})
	ci := serve(t, 200, `[]`)
	if out := red.Redact(ci.Token); out != ci.Token {
		t.Fatalf("the token is redacted before it is sent: %q", out)
	}
	if _, err := c.Kernels(ctx(t), ci); err != nil {
		t.Fatal(err)
	}
	if out := red.Redact("header " + ci.Token + " seen"); strings.Contains(out, ci.Token) {
		t.Errorf("the redactor does not know the token sent: %q", out)
	}
}

// The caller's own cancellation is its context's error (a poll skipped,
// not a runtime failing), not ErrUnavailable.
func TestCallerCancellationIsNotAFailure(t *testing.T) {
	started := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	c := New(Options{})
	cx, cancel := context.WithCancel(ctx(t))
	go func() { <-started; cancel() }()
	_, err := c.Resources(cx, api.ConnectionInfo{URL: srv.URL + "/", Token: "tok"})
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrUnavailable) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}

// The requests go through the transport the caller gives (its proxy
// settings, its connection pool).
func TestRequestsUseTheTransportGiven(t *testing.T) {
	tr := &testkit.CountingTransport{}
	c := New(Options{Transport: tr})
	if _, err := c.Kernels(ctx(t), serve(t, 200, `[]`)); err != nil {
		t.Fatal(err)
	}
	if n := tr.Requests(); n != 1 {
		t.Errorf("%d requests through the transport given, want 1", n)
	}
}

// Every size and count may come as any JSON number: an integral float
// (Python's json.dumps of a float) or an exponent form is rounded, not a
// reason to drop the whole reply; only a non-number is refused.
func TestSizesAndCountsTakeAnyJSONNumber(t *testing.T) {
	c := New(Options{})
	r, err := c.Resources(ctx(t), serve(t, 200, `{"memory":{"totalBytes":13605834752.0,"freeBytes":1.0e10},`+
		`"disks":[{"filesystem":{"label":"kernel","totalBytes":1.36e10,"usedBytes":4.4}}],`+
		`"gpus":[{"name":"Tesla T4","memoryUsedBytes":2.0E9,"memoryTotalBytes":16106127360.0,"gpuUtilization":0.5}]}`))
	if err != nil {
		t.Fatalf("resources: %v", err)
	}
	if m := r.Memory; m == nil || m.TotalBytes != 13605834752 || m.FreeBytes != 10000000000 {
		t.Errorf("memory = %+v", r.Memory)
	}
	if d := r.Disks; len(d) != 1 || d[0].TotalBytes != 13600000000 || d[0].UsedBytes != 4 {
		t.Errorf("disks = %+v", r.Disks)
	}
	if g := r.GPUs; len(g) != 1 || g[0].MemoryUsedBytes != 2000000000 || g[0].MemoryTotalBytes != 16106127360 || g[0].GPUUtilization != 0.5 {
		t.Errorf("gpus = %+v", r.GPUs)
	}
	ks, err := c.Kernels(ctx(t), serve(t, 200, `[{"id":"k1","name":"python3","execution_state":"idle","connections":1.0}]`))
	if err != nil || len(ks) != 1 || ks[0].Connections != 1 {
		t.Errorf("kernels = %+v, %v", ks, err)
	}
	ss, err := c.Sessions(ctx(t), serve(t, 200, `[{"id":"s1","path":"a.ipynb","kernel":{"id":"k1","connections":2e0}}]`))
	if err != nil || len(ss) != 1 || ss[0].Kernel.Connections != 2 {
		t.Errorf("sessions = %+v, %v", ss, err)
	}
	// A fraction past float64's range is its bound, clamped: not a
	// reason to lose the RAM and disks beside it.
	r, err = c.Resources(ctx(t), serve(t, 200, `{"memory":{"totalBytes":16,"freeBytes":8},"disks":[{"filesystem":{"label":"kernel","totalBytes":8,"usedBytes":4}}],`+
		`"gpus":[{"name":"A","gpuUtilization":1e400,"memoryUtilization":-1e400},{"name":"B","gpuUtilization":1e-400}]}`))
	if err != nil || r.Memory == nil || len(r.GPUs) != 2 || r.GPUs[0].GPUUtilization != 1 || r.GPUs[0].MemoryUtilization != 0 || r.GPUs[1].GPUUtilization != 0 {
		t.Errorf("fractions out of range: %+v, %v", r.GPUs, err)
	}
	_, err = c.Resources(ctx(t), serve(t, 200, `{"gpus":[{"name":"A","gpuUtilization":"0.5"}]}`))
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "gpuUtilization") {
		t.Errorf("a string fraction: %v, want unavailable naming gpuUtilization", err)
	}
	_, err = c.Resources(ctx(t), serve(t, 200, `{"memory":{"totalBytes":"13605834752","freeBytes":1}}`))
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "totalBytes") {
		t.Errorf("a string size: %v, want unavailable naming totalBytes", err)
	}
}
