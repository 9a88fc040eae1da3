package runtimeproxy

// A large directory without the files: with
// Config.ManyFiles = N every runtime's SyntheticDir lists N empty files
// named as an image dataset's are ("img_000001_augmented_sample.png"),
// generated as the reply is written, so a 120,000-entry listing (35 MB of
// JSON, as a real jupyter-server writes it) costs neither N files nor
// the reply in memory. Each entry can be stat-ed and downloaded (it is
// empty); the directory is read-only.

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// SyntheticDir is the directory Config.ManyFiles (colabfake.Options.ManyFiles) fills, in every
// runtime's tree (/content/many).
const SyntheticDir = "content/many"

// syntheticTime is every synthetic entry's last_modified and created.
var syntheticTime = time.Date(2026, 11, 1, 12, 0, 0, 123456000, time.UTC)

// SyntheticName is the name of the i-th (1-based) entry of SyntheticDir.
func SyntheticName(i int) string { return fmt.Sprintf("img_%06d_augmented_sample.png", i) }

// syntheticIndex parses a SyntheticName back to its index (0: not one of
// the n entries).
func syntheticIndex(name string, n int) int {
	d, ok := strings.CutPrefix(name, "img_")
	if !ok {
		return 0
	}
	d, ok = strings.CutSuffix(d, "_augmented_sample.png")
	if !ok || len(d) < 6 {
		return 0
	}
	i, err := strconv.Atoi(d)
	if err != nil || i < 1 || i > n || SyntheticName(i) != name {
		return 0
	}
	return i
}

// serveSynthetic serves rest (the path below the runtime's URL) when it
// is SyntheticDir or inside it, and reports whether it did.
func (s *Server) serveSynthetic(w http.ResponseWriter, r *http.Request, rest string) bool {
	n := s.opts.ManyFiles
	if n <= 0 {
		return false
	}
	var p string
	files := false
	switch {
	case strings.HasPrefix(rest, "api/contents/"):
		p = cleanJupyterPath(strings.TrimPrefix(rest, "api/contents/"))
	case strings.HasPrefix(rest, "files/"):
		p, files = cleanJupyterPath(strings.TrimPrefix(rest, "files/")), true
	default:
		return false
	}
	name, inside := strings.CutPrefix(p, SyntheticDir+"/")
	if p != SyntheticDir && !inside {
		return false
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		jsonError(w, http.StatusForbidden, "Permission denied: %s is read-only", p)
		return true
	}
	if inside && (strings.Contains(name, "/") || syntheticIndex(name, n) == 0) {
		if files {
			htmlNotFound(w)
		} else {
			jsonError(w, http.StatusNotFound, "file or directory does not exist: %q", p)
		}
		return true
	}
	if !files && badType(w, r, p, !inside) {
		return true
	}
	switch {
	case files && !inside:
		http.Error(w, "is not a file", http.StatusForbidden)
	case files:
		w.Header().Set("Content-Type", "image/png")
		w.Header().Set("Content-Length", "0")
		w.Header().Set("Last-Modified", syntheticTime.Format(http.TimeFormat))
	case inside:
		w.Header().Set("Content-Type", "application/json")
		bw := bufio.NewWriter(w)
		writeSyntheticEntry(bw, SyntheticDir+"/"+name, name, r.URL.Query().Get("content") != "0")
		_ = bw.Flush()
	default:
		w.Header().Set("Content-Type", "application/json")
		bw := bufio.NewWriterSize(w, 64<<10)
		ts := jupyterTime(syntheticTime)
		fmt.Fprintf(bw, `{"name": "many", "path": %q, "last_modified": %q, "created": %q, "content": `, SyntheticDir, ts, ts)
		if r.URL.Query().Get("content") == "0" {
			bw.WriteString("null")
		} else {
			bw.WriteByte('[')
			for i := 1; i <= n; i++ {
				if i > 1 {
					bw.WriteString(", ")
				}
				name := SyntheticName(i)
				writeSyntheticEntry(bw, SyntheticDir+"/"+name, name, false)
			}
			bw.WriteByte(']')
		}
		bw.WriteString(`, "format": "json", "mimetype": null, "size": null, "writable": true, "hash": null, "hash_algorithm": null, "type": "directory"}`)
		_ = bw.Flush()
	}
	return true
}

// writeSyntheticEntry writes one empty file's model as jupyter-server
// writes a listing's entries (about 294 bytes each); with
// content, its (empty) text content.
func writeSyntheticEntry(w io.Writer, p, name string, content bool) {
	ts := jupyterTime(syntheticTime)
	c, f := "null", "null"
	if content {
		c, f = `""`, `"text"`
	}
	fmt.Fprintf(w, `{"name": %q, "path": %q, "last_modified": %q, "created": %q, "content": %s, "format": %s, "mimetype": "image/png", "size": 0, "writable": true, "hash": null, "hash_algorithm": null, "type": "file"}`,
		name, p, ts, ts, c, f)
}
