package transfer

// The part file's stamp (partstamp.go) read and written
// directly, on an *os.File in a temporary directory: which kept parts
// are resumed and which are started afresh.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// partWith returns an open part file holding have bytes of content,
// stamped by stampPart for remote's model m, and its size.
func partWith(t *testing.T, have int64, remote string, m proxy.Model) (*os.File, int64) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(t.TempDir(), "f"+PartSuffix), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if _, err := f.WriteAt(bytes.Repeat([]byte{'x'}, int(have)), 0); err != nil {
		t.Fatal(err)
	}
	stampPart(f, have, remote, m)
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return f, st.Size()
}

// Guards which kept parts are stamped: only one with some bytes, short
// of the remote size, of a file whose size and last_modified the runtime
// reported (else it could never be matched, or there is nothing left to
// fetch); an unstamped part is left exactly as it was.
func TestStampPartOnlyWhatCanBeResumed(t *testing.T) {
	lm := time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		have    int64
		m       proxy.Model
		stamped bool
	}{
		{"some bytes of a known version", 10, proxy.Model{Size: 100, LastModified: lm}, true},
		{"all but one byte", 99, proxy.Model{Size: 100, LastModified: lm}, true},
		{"no bytes", 0, proxy.Model{Size: 100, LastModified: lm}, false},
		{"every byte", 100, proxy.Model{Size: 100, LastModified: lm}, false},
		{"no last_modified", 10, proxy.Model{Size: 100}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, size := partWith(t, tc.have, "content/a.bin", tc.m)
			if got := size > tc.have; got != tc.stamped {
				t.Errorf("a part of %d bytes of a %d-byte file is %d bytes after stampPart: stamped %v, want %v", tc.have, tc.m.Size, size, got, tc.stamped)
			}
		})
	}
}

// Guards the match: a stamped part is resumed from its own length only
// for the same remote path, size and last_modified; any other is
// started afresh.
func TestStampedLengthMatchesOnlyTheSameVersion(t *testing.T) {
	lm := time.Date(2026, 11, 29, 18, 0, 0, 123456789, time.UTC)
	m := proxy.Model{Size: 1000, LastModified: lm}
	f, size := partWith(t, 300, "content/a.bin", m)
	for _, tc := range []struct {
		name   string
		remote string
		m      proxy.Model
		ok     bool
	}{
		{"the same version", "content/a.bin", m, true},
		{"another path", "content/b.bin", m, false},
		{"another size", "content/a.bin", proxy.Model{Size: 1001, LastModified: lm}, false},
		{"another last_modified", "content/a.bin", proxy.Model{Size: 1000, LastModified: lm.Add(time.Nanosecond)}, false},
		{"no last_modified now", "content/a.bin", proxy.Model{Size: 1000}, false},
		{"now as long as the part", "content/a.bin", proxy.Model{Size: 300, LastModified: lm}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			have, ok := stampedLength(f, size, tc.remote, tc.m)
			if ok != tc.ok || (ok && have != 300) {
				t.Errorf("stampedLength = %d, %v; want %v (300 bytes kept)", have, ok, tc.ok)
			}
		})
	}
}

// Guards the reading of a damaged or foreign stamp: a part whose tail
// is not a whole stamp (too short, cut, its length field wrong, its
// JSON saying another length than the bytes before it, or all of the
// file, or none of it) is never resumed.
func TestStampedLengthRefusesDamagedStamps(t *testing.T) {
	lm := time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC)
	m := proxy.Model{Size: 1 << 20, LastModified: lm}
	stamp := func(path string, size, have int64) []byte {
		b, _ := json.Marshal(partStamp{Path: path, Size: size, LastModified: stampTime(lm), Have: have})
		return b
	}
	foot := func(n int) string { return fmt.Sprintf("%08d", n) + partStampMagic }
	content := bytes.Repeat([]byte{'x'}, 50)
	good := stamp("content/a.bin", m.Size, 50)
	all := stamp("content/a.bin", 50, 50)
	none := stamp("content/a.bin", m.Size, 0) // all the file before its footer
	for _, tc := range []struct {
		name   string
		remote string
		m      proxy.Model
		file   []byte
		ok     bool
	}{
		{"whole", "content/a.bin", m, cat(content, good, []byte(foot(len(good)))), true},
		{"only the footer", "content/a.bin", m, []byte(foot(len(good))), false},
		{"length zero", "content/a.bin", m, cat(content, good, []byte(foot(0))), false},
		{"length one short", "content/a.bin", m, cat(content, good, []byte(foot(len(good)-1))), false},
		{"length past the file", "content/a.bin", m, cat(good, []byte(foot(len(good)+1))), false},
		{"length over the largest accepted", "content/a.bin", m, cat(content, good, []byte(foot(partStampMax+1))), false},
		{"JSON saying other bytes", "content/a.bin", m, cat(content[:40], good, []byte(foot(len(good)))), false},
		{"claiming every byte", "content/a.bin", proxy.Model{Size: 50, LastModified: lm}, cat(content, all, []byte(foot(len(all)))), false},
		{"a stamp of no bytes", "content/a.bin", m, cat(none, []byte(foot(len(none)))), false},
		{"not a stamp", "content/a.bin", m, cat(content, []byte("plain bytes of a file")), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := os.Create(filepath.Join(t.TempDir(), "p"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.Write(tc.file); err != nil {
				t.Fatal(err)
			}
			have, ok := stampedLength(f, int64(len(tc.file)), tc.remote, tc.m)
			if ok != tc.ok || (ok && have != 50) {
				t.Errorf("stampedLength = %d, %v; want %v (50 bytes kept)", have, ok, tc.ok)
			}
		})
	}
}

// Guards the stamp's bound: one of exactly partStampMax bytes of JSON
// (a very long remote path) is written and read back.
func TestStampOfTheLargestLength(t *testing.T) {
	lm := time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC)
	m := proxy.Model{Size: 1 << 20, LastModified: lm}
	short, _ := json.Marshal(partStamp{Path: "content/", Size: m.Size, LastModified: stampTime(lm), Have: 50})
	long := "content/" + strings.Repeat("p", partStampMax-len(short))
	f, size := partWith(t, 50, long, m)
	if have, ok := stampedLength(f, size, long, m); !ok || have != 50 {
		t.Errorf("a stamp of %d bytes of JSON: stampedLength = %d, %v; want 50, true", partStampMax, have, ok)
	}
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
