package jobs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter"
)

// readLogCases checks ReadLog and TailLog on a log of known bytes: pieces
// from any offset, nothing new at or past the end, the size when the
// server says it, a suffix for the tail.
func readLogCases(t *testing.T, e *env, id, log string, sizeKnown bool) {
	t.Helper()
	ctx := context.Background()
	total := int64(len(log))
	for _, c := range []struct{ off, max int64 }{{0, 10}, {7, 5}, {total - 3, 10}, {0, total}, {0, 1 << 20}} {
		b, size, err := ReadLog(ctx, e.jc, id, c.off, c.max)
		want := log[c.off:min(c.off+c.max, total)]
		if err != nil || string(b) != want {
			t.Errorf("ReadLog(%d, %d) = %q, %v; want %q", c.off, c.max, b, err, want)
		}
		if sizeKnown && size != total {
			t.Errorf("ReadLog(%d, %d) said size %d, want %d", c.off, c.max, size, total)
		}
	}
	for _, off := range []int64{total, total + 100} {
		if b, _, err := ReadLog(ctx, e.jc, id, off, 10); err != nil || len(b) != 0 {
			t.Errorf("ReadLog at %d of a %d-byte log = %q, %v; want nothing new", off, total, b, err)
		}
	}
	for _, n := range []int64{1, 5, total, total + 50} {
		b, start, err := TailLog(ctx, e.jc, id, n)
		wantStart := max(total-n, 0)
		if err != nil || string(b) != log[wantStart:] || start != wantStart {
			t.Errorf("TailLog(%d) = %q at %d, %v; want %q at %d", n, b, start, err, log[wantStart:], wantStart)
		}
	}
}

// The log is read in ranges: exactly the bytes asked for, from any
// offset, also through a proxy that ignores Range (a whole-file reply is
// cut to the piece asked for); past the end is nothing new, not an
// error; a missing log is ErrNotFound.
func TestReadLogRanges(t *testing.T) {
	e := newEnv(t, colabfake.Options{})
	log := strings.Repeat("0123456789abcdefghij\n", 20) + "no newline at the end"
	e.fakeJob(t, "log-aaaaaa", map[string]string{SpecFile: specJSON("log-aaaaaa", time.Now()), LogFile: log})
	e.fakeJob(t, "empty-aaaaaa", map[string]string{SpecFile: specJSON("empty-aaaaaa", time.Now()), LogFile: ""})
	e.fakeJob(t, "nolog-aaaaaa", map[string]string{SpecFile: specJSON("nolog-aaaaaa", time.Now())})
	ctx := context.Background()

	readLogCases(t, e, "log-aaaaaa", log, true)
	if b, _, err := ReadLog(ctx, e.jc, "empty-aaaaaa", 0, 10); err != nil || len(b) != 0 {
		t.Errorf("ReadLog of an empty log = %q, %v", b, err)
	}
	if b, start, err := TailLog(ctx, e.jc, "empty-aaaaaa", 10); err != nil || len(b) != 0 || start != 0 {
		t.Errorf("TailLog of an empty log = %q at %d, %v", b, start, err)
	}
	if _, _, err := ReadLog(ctx, e.jc, "nolog-aaaaaa", 0, 10); !errors.Is(err, jupyter.ErrNotFound) {
		t.Errorf("ReadLog of a missing log = %v, want ErrNotFound", err)
	}
	if _, _, err := ReadLog(ctx, e.jc, "a/../b", 0, 10); !errors.Is(err, ErrBadID) {
		t.Errorf("ReadLog of a bad id = %v, want ErrBadID", err)
	}

	t.Run("proxy ignoring Range", func(t *testing.T) {
		e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyIgnoreRange, PathPrefix: "files/", Times: -1})
		defer e.Srv.ClearProxyFaults()
		readLogCases(t, e, "log-aaaaaa", log, true)
	})
}

// stderr.ranges is read in whole lines: a line still being written is
// left for the next read, which starts where the last whole line ended;
// lines that are not two numbers are skipped; no file is no range yet.
func TestReadStderrRanges(t *testing.T) {
	e := newEnv(t, colabfake.Options{})
	ctx := context.Background()
	e.fakeJob(t, "err-aaaaaa", map[string]string{SpecFile: specJSON("err-aaaaaa", time.Now()), StderrFile: "0 5\nnonsense\n-1 4\n10 3\n20 "})
	e.fakeJob(t, "noerr-aaaaaa", map[string]string{SpecFile: specJSON("noerr-aaaaaa", time.Now())})

	got, next, err := ReadStderrRanges(ctx, e.jc, "err-aaaaaa", 0)
	if want := []Range{{0, 5}, {10, 3}}; err != nil || !reflect.DeepEqual(got, want) || next != 23 {
		t.Fatalf("ReadStderrRanges = %v next %d, %v; want %v next 23", got, next, err, want)
	}
	f, err := os.OpenFile(filepath.Join(e.root, filepath.FromSlash(Dir("err-aaaaaa")), StderrFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("4\n30 1\n")
	f.Close()
	got, next, err = ReadStderrRanges(ctx, e.jc, "err-aaaaaa", next)
	if want := []Range{{20, 4}, {30, 1}}; err != nil || !reflect.DeepEqual(got, want) || next != 33 {
		t.Errorf("ReadStderrRanges from 23 = %v next %d, %v; want %v next 33", got, next, err, want)
	}
	if got, next, err := ReadStderrRanges(ctx, e.jc, "noerr-aaaaaa", 0); err != nil || len(got) != 0 || next != 0 {
		t.Errorf("ReadStderrRanges without the file = %v next %d, %v", got, next, err)
	}
}

// Stop writes the stop file with the grace in seconds; a job that does
// not exist cannot be stopped.
func TestStopWritesTheGrace(t *testing.T) {
	e := newEnv(t, colabfake.Options{})
	ctx := context.Background()
	e.fakeJob(t, "stop-aaaaaa", map[string]string{SpecFile: specJSON("stop-aaaaaa", time.Now())})
	for grace, want := range map[time.Duration]string{0: "10\n", 1500 * time.Millisecond: "1.5\n", time.Microsecond: "0.001\n"} {
		if err := Stop(ctx, e.jc, "stop-aaaaaa", grace); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(e.root, filepath.FromSlash(Dir("stop-aaaaaa")), StopFile))
		if err != nil || string(b) != want {
			t.Errorf("Stop(%v) wrote %q, %v; want %q", grace, b, err, want)
		}
	}
	if err := Stop(ctx, e.jc, "gone-aaaaaa", 0); !errors.Is(err, jupyter.ErrNoParent) {
		t.Errorf("Stop of a missing job = %v, want ErrNoParent", err)
	}
	if err := Stop(ctx, e.jc, "../x", 0); !errors.Is(err, ErrBadID) {
		t.Errorf("Stop of a bad id = %v, want ErrBadID", err)
	}
}
