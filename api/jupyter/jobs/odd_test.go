package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
)

// A reply to a ranged read of the log is taken by where it says it
// starts, not by its status: a 200 that kept its Content-Range (as
// Colab's proxy was seen to send), a 206 starting before the offset asked
// for (skipped up to it), a body longer than asked (cut); a reply that
// starts past the offset, or a 206 that does not say where it starts, is
// an error and brings nothing.
func TestReadLogTakesRepliesByTheirRange(t *testing.T) {
	const log = "0123456789abcdefghijklmnopqrstuvwxyz"
	var reply func(w http.ResponseWriter)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/files/"+Dir("odd-aaaaaa")+"/"+LogFile {
			http.NotFound(w, r)
			return
		}
		reply(w)
	}))
	t.Cleanup(srv.Close)
	jc, err := jupyter.New(jupyter.Options{Runtime: "runtimes/rt-odd", Redactor: &api.Redactor{},
		Info: api.ConnectionInfo{URL: srv.URL + "/", Token: "token-odd", ExpireTime: time.Now().Add(time.Hour)}})
	if err != nil {
		t.Fatal(err)
	}
	ranged := func(status int, start int, body string, cr string) func(w http.ResponseWriter) {
		return func(w http.ResponseWriter) {
			if cr == "" {
				cr = fmt.Sprintf("bytes %d-%d/%d", start, start+len(body)-1, len(log))
			}
			if cr != "none" {
				w.Header().Set("Content-Range", cr)
			}
			w.WriteHeader(status)
			_, _ = w.Write([]byte(body))
		}
	}
	for _, c := range []struct {
		name  string
		reply func(w http.ResponseWriter)
		want  string // "" with wantErr
		err   bool
	}{
		{"206 as asked", ranged(http.StatusPartialContent, 10, log[10:15], ""), log[10:15], false},
		{"200 keeping its Content-Range", ranged(http.StatusOK, 10, log[10:15], ""), log[10:15], false},
		{"206 from before the offset", ranged(http.StatusPartialContent, 4, log[4:15], ""), log[10:15], false},
		{"200 of the whole file", ranged(http.StatusOK, 0, log, "none"), log[10:15], false},
		{"longer than asked", ranged(http.StatusPartialContent, 10, log[10:], ""), log[10:15], false},
		{"206 from past the offset", ranged(http.StatusPartialContent, 12, log[12:17], ""), "", true},
		{"206 without Content-Range", ranged(http.StatusPartialContent, 10, log[10:15], "none"), "", true},
		{"unreadable Content-Range", ranged(http.StatusPartialContent, 10, log[10:15], "lines 10-15"), "", true},
	} {
		reply = c.reply
		b, _, err := ReadLog(context.Background(), jc, "odd-aaaaaa", 10, 5)
		var je *jupyter.Error
		switch {
		case c.err && (!errors.As(err, &je) || je.Kind != jupyter.ErrServer || len(b) != 0):
			t.Errorf("%s: ReadLog = %q, %v; want nothing and an ErrServer error", c.name, b, err)
		case !c.err && (err != nil || string(b) != c.want):
			t.Errorf("%s: ReadLog = %q, %v; want %q", c.name, b, err, c.want)
		}
	}
	reply = ranged(http.StatusOK, 0, log, "none")
	if b, start, err := TailLog(context.Background(), jc, "odd-aaaaaa", 4); err != nil || string(b) != log[len(log)-4:] || start != int64(len(log)-4) {
		t.Errorf("TailLog through a reply ignoring Range = %q at %d, %v; want %q at %d", b, start, err, log[len(log)-4:], len(log)-4)
	}
}

// A runtime whose jobs directory holds many jobs has only the MaxJobs
// that changed last read (two requests each), and one holding more than
// MaxListed entries is refused: a hostile listing cannot make List send
// requests or hold entries without end.
func TestListIsBounded(t *testing.T) {
	base := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	var entries int
	var specReads atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := strings.TrimPrefix(r.URL.Path, "/api/contents/")
		switch {
		case p == Root:
			var b strings.Builder
			b.WriteString(`{"name":"jobs","path":"` + Root + `","type":"directory","format":"json","content":[`)
			for i := range entries {
				if i > 0 {
					b.WriteString(",")
				}
				fmt.Fprintf(&b, `{"name":"j%06d-aaaaaa","path":"%s/j%06d-aaaaaa","type":"directory","last_modified":"%s"}`,
					i, Root, i, base.Add(time.Duration(i)*time.Second).Format(time.RFC3339))
			}
			b.WriteString("]}")
			_, _ = w.Write([]byte(b.String()))
		case strings.HasSuffix(p, "/"+SpecFile):
			specReads.Add(1)
			id := strings.TrimSuffix(strings.TrimPrefix(p, Root+"/"), "/"+SpecFile)
			spec, _ := json.Marshal(Spec{ID: id, Cwd: "content", File: "content/t.py", Argv0: "t.py", Created: base})
			model, _ := json.Marshal(map[string]any{"name": SpecFile, "path": p, "type": "file", "format": "text", "content": string(spec)})
			_, _ = w.Write(model)
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"message": "No such file or directory"}`))
		}
	}))
	t.Cleanup(srv.Close)
	jc, err := jupyter.New(jupyter.Options{Runtime: "runtimes/rt-many", Redactor: &api.Redactor{},
		Info: api.ConnectionInfo{URL: srv.URL + "/", Token: "token-many", ExpireTime: time.Now().Add(time.Hour)}})
	if err != nil {
		t.Fatal(err)
	}
	entries = MaxJobs + 50
	recs, err := List(context.Background(), jc)
	if err != nil || len(recs) != MaxJobs || specReads.Load() != MaxJobs {
		t.Fatalf("%d entries: %d jobs, %d spec reads, %v; want %d", entries, len(recs), specReads.Load(), err, MaxJobs)
	}
	for _, r := range recs {
		if r.Spec.ID < "j000050" {
			t.Fatalf("job %s read, though %d changed later", r.Spec.ID, MaxJobs)
		}
	}
	entries, specReads = MaxListed+1, atomic.Int64{}
	if _, err := List(context.Background(), jc); !errors.Is(err, ErrTooManyJobs) || specReads.Load() != 0 {
		t.Fatalf("%d entries: %v after %d spec reads, want ErrTooManyJobs before any", entries, err, specReads.Load())
	}
}
