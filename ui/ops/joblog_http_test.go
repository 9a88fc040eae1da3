package ops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/api/jupyter/jobs"
)

// filesServer is a runtime's Jupyter server as far as a job goes, on
// 127.0.0.1: /files/ of the log with Range (206, 416 past the end) and
// status.json through the contents API. It counts the requests and the
// bytes of log it sent.
type filesServer struct {
	mu       sync.Mutex
	id       string
	log      []byte
	status   *jobs.Status
	modified time.Time
	requests int
	logBytes int
	statuses int
}

func (s *filesServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	dir := "/" + jobs.Dir(s.id) + "/"
	switch r.URL.Path {
	case "/files" + dir + jobs.LogFile:
		size := int64(len(s.log))
		rng := strings.TrimPrefix(r.Header.Get("Range"), "bytes=")
		a, b, _ := strings.Cut(rng, "-")
		var from, to int64
		if a == "" { // a suffix
			n, _ := strconv.ParseInt(b, 10, 64)
			from, to = max(size-n, 0), size-1
		} else {
			from, _ = strconv.ParseInt(a, 10, 64)
			to, _ = strconv.ParseInt(b, 10, 64)
			to = min(to, size-1)
		}
		if from >= size {
			w.Header().Set("Content-Range", fmt.Sprintf("bytes */%d", size))
			w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
			return
		}
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", from, to, size))
		w.WriteHeader(http.StatusPartialContent)
		n, _ := w.Write(s.log[from : to+1])
		s.logBytes += n
	case "/api/contents" + dir + jobs.StatusFile:
		s.statuses++
		if s.status == nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"message": "No such file or directory", "reason": null}`)
			return
		}
		b, _ := json.Marshal(s.status)
		json.NewEncoder(w).Encode(map[string]any{"name": jobs.StatusFile, "path": dir[1:] + jobs.StatusFile, "type": "file",
			"format": "text", "content": string(b), "last_modified": s.modified.Format(time.RFC3339Nano)})
	default:
		http.NotFound(w, r)
	}
}

// Against an HTTP server on loopback: a job that prints a line a poll
// is followed to its end, every line once; each poll is one request;
// the bytes read are the log's (nothing read twice); the past-the-end
// reads that are answered 416 are nothing new.
func TestJobLogOverHTTPReadsOnlyNewBytes(t *testing.T) {
	srv := &filesServer{id: "train-4kq9zt", log: []byte(strings.Repeat("old line\n", 100000)), modified: time.Now()}
	srv.status = &jobs.Status{Pid: 9, Started: time.Now(), Heartbeat: time.Now()}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	jc, err := jupyter.New(jupyter.Options{Runtime: "runtimes/rt-a", Info: api.ConnectionInfo{URL: hs.URL + "/", Token: "proxy-token-for-test-1234"}})
	if err != nil {
		t.Fatal(err)
	}
	before := len(srv.log)
	polls := 0
	src := JobLog(jc, srv.id, JobLogOptions{From: int64(before), Follow: true})
	l := src.(*jobLog)
	l.sleep = func(ctx context.Context, _ time.Duration) error {
		srv.mu.Lock()
		defer srv.mu.Unlock()
		polls++
		switch {
		case polls <= 30 && polls%3 != 0: // a line on two polls of three
			srv.log = append(srv.log, fmt.Sprintf("line %d\n", polls)...)
			srv.modified = time.Now()
		case polls == 40:
			srv.status.Ended, srv.status.ExitCode, srv.modified = time.Now(), 7, time.Now()
			srv.log = append(srv.log, "last words\n"...)
		}
		return ctx.Err()
	}
	var got []byte
	var end *jobs.Status
	for i := 0; i < 500; i++ {
		c, err := src.Next(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, c.Data...)
		if c.Ended != nil {
			end = c.Ended
		}
	}
	want := string(srv.log[before:])
	if string(got) != want {
		t.Fatalf("followed\n%q\nwant\n%q", got, want)
	}
	if end == nil || end.ExitCode != 7 {
		t.Fatalf("end %+v", end)
	}
	if srv.requests > polls+2 {
		t.Fatalf("%d requests for %d polls", srv.requests, polls)
	}
	if srv.logBytes != len(want) {
		t.Fatalf("read %d bytes of log for %d new ones", srv.logBytes, len(want))
	}
	if srv.statuses == 0 {
		t.Fatal("never read the status")
	}
}

// --tail over HTTP: a suffix Range, and only the last lines printed.
func TestJobLogTailOverHTTP(t *testing.T) {
	srv := &filesServer{id: "eval-1", log: []byte(strings.Repeat("x\n", 50000) + "a\nb\nc\n"), modified: time.Now()}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	jc, err := jupyter.New(jupyter.Options{Runtime: "runtimes/rt-a", Info: api.ConnectionInfo{URL: hs.URL + "/", Token: "proxy-token-for-test-1234"}})
	if err != nil {
		t.Fatal(err)
	}
	src := JobLog(jc, srv.id, JobLogOptions{Tail: 2})
	var got []byte
	for {
		c, err := src.Next(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, c.Data...)
	}
	if string(got) != "b\nc\n" || srv.logBytes > 1024 || srv.requests > 2 {
		t.Fatalf("%q, %d bytes in %d requests", got, srv.logBytes, srv.requests)
	}
}
