package transfer

// Issue 19: the size edges of upload.go (a 0-byte file, a file of
// exactly the chunk size, one byte more, exactly two chunks). Each test
// names the behaviour it guards; all run on the emulator, with no waits.

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// Guards the one-request upload and its bound: a file of 0 bytes, or of
// exactly ChunkSize bytes, goes in one PUT onto its own name (no part
// file, no rename); one byte more, or exactly two chunks, goes in two
// PUTs to the part file, renamed once. Each arrives whole: downloaded
// back, it has the bytes sent.
func TestUploadChunkSizeEdges(t *testing.T) {
	const chunk = 300_000 // a multiple of 3, as ChunkSize is rounded to
	e := newEnv(t, backendEmulator, colabfake.Options{})
	c := e.client(func(o *proxy.Options) { o.ChunkSize = chunk })
	dir := t.TempDir()
	for i, tc := range []struct {
		name    string
		size    int
		puts    int  // PUT requests
		viaPart bool // through NAME.colabdash-part and a rename
	}{
		{"0 bytes", 0, 1, false},
		{"exactly the chunk size", chunk, 1, false},
		{"the chunk size and one byte", chunk + 1, 2, true},
		{"exactly two chunks", 2 * chunk, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := randomBytes(tc.size, uint64(50+i))
			remote := e.p("up-" + strings.ReplaceAll(tc.name, " ", "-") + ".bin")
			var log methodLog
			e.SetOnProxy(log.hook)
			m, err := c.Upload(context.Background(), remote, bytes.NewReader(data), int64(len(data)), nil)
			e.SetOnProxy(nil)
			if err != nil {
				t.Fatalf("upload of %d bytes: %v", tc.size, err)
			}
			if m.Size != int64(tc.size) {
				t.Errorf("returned model size %d, want %d", m.Size, tc.size)
			}
			log.mu.Lock()
			got := append([]string(nil), log.got...)
			log.mu.Unlock()
			puts, partPuts, renames := 0, 0, 0
			for _, g := range got {
				switch {
				case strings.HasPrefix(g, "PUT ") && strings.HasSuffix(g, PartSuffix):
					puts++
					partPuts++
				case strings.HasPrefix(g, "PUT "):
					puts++
				case strings.HasPrefix(g, "PATCH "):
					renames++
				}
			}
			if puts != tc.puts {
				t.Errorf("%d PUT requests, want %d (requests %q)", puts, tc.puts, got)
			}
			if tc.viaPart && (partPuts != puts || renames != 1) {
				t.Errorf("requests %q: want every PUT to the part file and one rename", got)
			}
			if !tc.viaPart && (partPuts != 0 || renames != 0) {
				t.Errorf("requests %q: want one PUT onto the name itself, no part file, no rename", got)
			}
			out := filepath.Join(dir, "back-"+strings.ReplaceAll(tc.name, " ", "-"))
			if _, err := download(t, c, remote, out); err != nil {
				t.Fatalf("download back: %v", err)
			}
			back, _ := os.ReadFile(out)
			if !bytes.Equal(back, data) {
				t.Fatalf("the runtime has %d bytes (SHA-256 %s), want the %d sent (%s)", len(back), shaOf(back), len(data), shaOf(data))
			}
		})
	}
}
