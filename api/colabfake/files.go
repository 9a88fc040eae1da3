package colabfake

// Why this file is over 400 lines: the emulator's whole Jupyter contents and files API (list, get, chunked put, mkdir, delete, rename, ranged download) in one place, to be read side by side with the Jupyter spec.

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// maxInlineContent bounds a file served inline by the contents API (GET
// content=1) and a text-format PUT: 64 MiB.
const maxInlineContent = 64 << 20

// maxPutBody bounds one contents PUT body, in bytes: Colab's "keep each
// request under 50 MB" (colab-api.md §4), 50 MB being 50,000,000 bytes.
// A larger body is refused with 413 (see putTooLarge).
const maxPutBody = 50_000_000

// putTooLarge answers a contents PUT whose body passed maxPutBody. The
// docs give the limit but not the refusal; a front end's answer to an
// oversized body is HTTP 413 Request Entity Too Large, from the proxy
// (plain text, not Jupyter's JSON error), so that is what the emulator
// sends [INFERRED].
func putTooLarge(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	http.Error(w, "413 Request Entity Too Large: a request to the runtime must carry under 50 MB (send larger files in chunks)", http.StatusRequestEntityTooLarge)
}

// overLimit records that the body it reads passed its http.MaxBytesReader
// limit (readPutModel's errors do not keep their cause).
type overLimit struct {
	r    io.Reader
	over bool
}

func (o *overLimit) Read(p []byte) (int, error) {
	n, err := o.r.Read(p)
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		o.over = true
	}
	return n, err
}

// fileRoot returns the emulator's file store root, creating it on first
// use.
func (s *Server) fileRoot() (*os.Root, error) {
	s.files.once.Do(func() {
		dir := s.opts.FilesDir
		if dir == "" {
			d, err := os.MkdirTemp("", "colabfake-files-")
			if err != nil {
				s.files.err = err
				return
			}
			dir, s.files.own = d, true
		}
		s.files.dir = dir
		s.files.root, s.files.err = os.OpenRoot(dir)
	})
	return s.files.root, s.files.err
}

// removeFiles deletes runtime id's file tree.
func (s *Server) removeFiles(id string) {
	root, err := s.fileRoot()
	if err != nil || root == nil || id == "" || strings.ContainsAny(id, "/\\.") {
		return
	}
	_ = root.RemoveAll(id)
}

// closeFiles closes the store and removes it when the emulator made it.
func (s *Server) closeFiles() {
	s.files.once.Do(func() {}) // no store after Close
	if s.files.root != nil {
		_ = s.files.root.Close()
		if s.files.own {
			_ = os.RemoveAll(s.files.dir)
		}
	}
}

// remotePath maps a Jupyter path ("content/a.txt") to its place in the
// store ("rt-x/content/a.txt"). ok is false for a path that tries to leave
// the runtime's tree ("." or ".." segments), which Jupyter answers 404.
func remotePath(id, p string) (string, bool) {
	segs := []string{id}
	for _, s := range strings.Split(p, "/") {
		switch s {
		case "":
			continue
		case ".", "..":
			return "", false
		}
		segs = append(segs, s)
	}
	return strings.Join(segs, "/"), true
}

// richOutputDir holds execute_code's rich-output bundles
// (RichOutput.filePath "/content/.dsm_outputs/{msg id}/out-000.json"),
// which Colab documents fetching with GET {url}/files/content/.dsm_outputs/…
// (colab-api.md §1.10, §4) although the directory is hidden.
const richOutputDir = "content/.dsm_outputs/"

// servedByFiles reports whether GET files/{p} may serve p: any path
// without a hidden segment, and the rich-output bundles (whose path is
// hidden only by .dsm_outputs itself).
func servedByFiles(p string) bool {
	if rest, ok := strings.CutPrefix(p, richOutputDir); ok {
		return !isHidden(rest)
	}
	return !isHidden(p)
}

func isHidden(p string) bool {
	for _, s := range strings.Split(p, "/") {
		if strings.HasPrefix(s, ".") {
			return true
		}
	}
	return false
}

func cleanJupyterPath(p string) string {
	parts := strings.Split(p, "/")
	out := parts[:0]
	for _, s := range parts {
		if s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, "/")
}

// serveJupyter serves one request of runtime id's Jupyter server; rest is
// the decoded path below the runtime's URL.
func (s *Server) serveJupyter(w http.ResponseWriter, r *http.Request, id, rest string) {
	root, err := s.fileRoot()
	if err != nil {
		jsonError(w, http.StatusInternalServerError, "file store: %v", err)
		return
	}
	s.ensureTree(root, id)
	if s.serveSynthetic(w, r, rest) {
		return
	}
	switch {
	case rest == "api/status" || rest == "api":
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"connections":0,"kernels":0}`)
	case strings.HasPrefix(rest, "files/"):
		s.serveFile(w, r, root, id, strings.TrimPrefix(rest, "files/"))
	case rest == "api/contents" || strings.HasPrefix(rest, "api/contents/"):
		s.serveContents(w, r, root, id, cleanJupyterPath(strings.TrimPrefix(rest, "api/contents")))
	case rest == "api/sessions":
		s.serveSessions(w, r, id)
	case strings.HasPrefix(rest, "api/kernels/"):
		s.serveKernel(w, r, id, strings.TrimPrefix(rest, "api/kernels/"))
	default:
		jsonError(w, http.StatusNotFound, "Not Found")
	}
}

// demoFiles is what a demo runtime's /content holds at first, like a
// fresh Colab runtime's sample_data.
var demoFiles = map[string]string{
	"content/sample_data/README.md": "This directory includes a few sample datasets to get you started.\n\n" +
		"(colabdash emulator: these files are made up.)\n",
	"content/sample_data/mnist_test_small.csv": "7,0,0,0\n2,0,0,0\n1,0,0,0\n",
	"content/sample_data/california_housing_test.csv": "\"longitude\",\"latitude\",\"median_house_value\"\n" +
		"-122.05,37.37,344700.0\n-118.30,34.26,176500.0\n",
}

// ensureTree creates runtime id's tree (content/, and the demo's sample
// files with the demo seed) the first time its proxy is used.
func (s *Server) ensureTree(root *os.Root, id string) {
	if _, err := root.Lstat(id); err == nil {
		return
	}
	_ = root.MkdirAll(id+"/content", 0o755)
	if s.opts.ManyFiles > 0 {
		_ = root.MkdirAll(id+"/"+SyntheticDir, 0o755) // listed in /content; its own requests are synthetic.go's
	}
	if s.opts.Seed != SeedDemo {
		return
	}
	for p, body := range demoFiles {
		_ = root.MkdirAll(id+"/"+path.Dir(p), 0o755)
		_ = root.WriteFile(id+"/"+p, []byte(body), 0o644)
	}
}

// htmlNotFound is Jupyter's /files/ 404: an HTML page, not JSON.
func htmlNotFound(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(http.StatusNotFound)
	_, _ = io.WriteString(w, "<!DOCTYPE HTML>\n<html><body><h1>404 : Not Found</h1><p>You are requesting a page that does not exist!</p></body></html>\n")
}

func (s *Server) serveFile(w http.ResponseWriter, r *http.Request, root *os.Root, id, p string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	p = cleanJupyterPath(p)
	sp, ok := remotePath(id, p)
	if !ok || !servedByFiles(p) {
		htmlNotFound(w)
		return
	}
	f, err := root.Open(sp)
	if err != nil {
		htmlNotFound(w)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		htmlNotFound(w)
		return
	}
	if st.IsDir() {
		http.Error(w, "is not a file", http.StatusForbidden)
		return
	}
	ct := mime.TypeByExtension(path.Ext(p))
	if ct == "" {
		ct = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, "", st.ModTime(), f)
}

// jmodel is a Jupyter contents model.
type jmodel struct {
	Name         string  `json:"name"`
	Path         string  `json:"path"`
	LastModified string  `json:"last_modified"`
	Created      string  `json:"created"`
	Content      any     `json:"content"`
	Format       *string `json:"format"`
	Mimetype     *string `json:"mimetype"`
	Size         *int64  `json:"size"`
	Writable     bool    `json:"writable"`
	Type         string  `json:"type"`
}

func jupyterTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z") }

func strPtr(s string) *string { return &s }

func modelOf(p string, st fs.FileInfo) jmodel {
	name := p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		name = p[i+1:]
	}
	m := jmodel{Name: name, Path: p, LastModified: jupyterTime(st.ModTime()), Created: jupyterTime(st.ModTime()),
		Writable: true, Type: "file"}
	if st.IsDir() {
		m.Type = "directory"
		return m
	}
	if strings.HasSuffix(name, ".ipynb") {
		m.Type = "notebook"
	}
	size := st.Size()
	m.Size = &size
	if ct := mime.TypeByExtension(path.Ext(name)); ct != "" {
		m.Mimetype = strPtr(strings.Split(ct, ";")[0])
	}
	return m
}

func writeModel(w http.ResponseWriter, status int, m jmodel) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(m)
}

func (s *Server) serveContents(w http.ResponseWriter, r *http.Request, root *os.Root, id, p string) {
	sp, ok := remotePath(id, p)
	if !ok {
		jsonError(w, http.StatusNotFound, "file or directory does not exist: %q", p)
		return
	}
	switch r.Method {
	case http.MethodGet:
		s.getModel(w, r, root, sp, p)
	case http.MethodPut:
		s.putModel(w, r, root, id, sp, p)
	case http.MethodPatch:
		s.renameModel(w, r, root, id, sp, p)
	case http.MethodDelete:
		if isHidden(p) {
			jsonError(w, http.StatusBadRequest, "Cannot delete file or directory %q", p)
			return
		}
		if s.opts.DeleteToTrash {
			s.deleteToTrash(w, root, id, sp, p)
			return
		}
		st, err := root.Lstat(sp)
		if err != nil {
			jsonError(w, http.StatusNotFound, "file or directory does not exist: %q", p)
			return
		}
		if st.IsDir() {
			if d, err := root.Open(sp); err == nil {
				names, _ := d.Readdirnames(1)
				d.Close()
				if len(names) > 0 {
					jsonError(w, http.StatusBadRequest, "Directory %s not empty", p)
					return
				}
			}
		}
		if err := root.Remove(sp); err != nil {
			jsonError(w, http.StatusInternalServerError, "Unexpected error while deleting %s: %v", p, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		jsonError(w, http.StatusMethodNotAllowed, "Method Not Allowed")
	}
}

func (s *Server) getModel(w http.ResponseWriter, r *http.Request, root *os.Root, sp, p string) {
	st, err := root.Stat(sp)
	if err != nil || isHidden(p) {
		jsonError(w, http.StatusNotFound, "file or directory does not exist: %q", p)
		return
	}
	m := modelOf(p, st)
	if r.URL.Query().Get("content") == "0" {
		writeModel(w, http.StatusOK, m)
		return
	}
	if st.IsDir() {
		d, err := root.Open(sp)
		if err != nil {
			jsonError(w, http.StatusInternalServerError, "%v", err)
			return
		}
		infos, _ := d.Readdir(-1)
		d.Close()
		sort.Slice(infos, func(i, j int) bool { return infos[i].Name() < infos[j].Name() })
		entries := make([]jmodel, 0, len(infos))
		for _, fi := range infos {
			cp := fi.Name()
			if p != "" {
				cp = p + "/" + fi.Name()
			}
			if fi.Mode()&fs.ModeSymlink != 0 && !strings.HasPrefix(fi.Name(), ".") {
				// As jupyter-server: a link is listed as what it points
				// to (a directory loop too), with the link's own times.
				if m, ok := linkModel(root, sp+"/"+fi.Name(), cp, fi); ok {
					entries = append(entries, m)
				}
				continue
			}
			if strings.HasPrefix(fi.Name(), ".") || (!fi.IsDir() && !fi.Mode().IsRegular()) {
				continue
			}
			entries = append(entries, modelOf(cp, fi))
		}
		m.Content, m.Format = entries, strPtr("json")
		writeModel(w, http.StatusOK, m)
		return
	}
	if st.Size() > maxInlineContent {
		jsonError(w, http.StatusBadRequest, "file too large to serve inline: %s", p)
		return
	}
	b, err := root.ReadFile(sp)
	if err != nil {
		jsonError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	format := r.URL.Query().Get("format")
	if format == "" {
		format = "base64"
		if utf8.Valid(b) {
			format = "text"
		}
	}
	if format == "text" {
		if !utf8.Valid(b) {
			jsonError(w, http.StatusBadRequest, "%s is not UTF-8 encoded", p)
			return
		}
		m.Content = string(b)
	} else {
		m.Content = base64.StdEncoding.EncodeToString(b)
	}
	m.Format = strPtr(format)
	if m.Mimetype == nil {
		m.Mimetype = strPtr(map[string]string{"text": "text/plain", "base64": "application/octet-stream"}[format])
	}
	writeModel(w, http.StatusOK, m)
}

// putModel saves a file or directory, with LargeFileManager's chunk
// semantics: no chunk or chunk 1 writes (truncates), any other value
// (including -1) appends, with no sequence check (field case 49).
func (s *Server) putModel(w http.ResponseWriter, r *http.Request, root *os.Root, id, sp, p string) {
	if p == "" {
		jsonError(w, http.StatusBadRequest, "Cannot save to the root directory")
		return
	}
	if isHidden(p) {
		jsonError(w, http.StatusBadRequest, "Cannot create file or directory %q", p)
		return
	}
	spoolName, err := spoolPath(root)
	if err != nil {
		jsonError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	defer root.Remove(spoolName)
	if r.ContentLength > maxPutBody {
		putTooLarge(w)
		return
	}
	body := &overLimit{r: http.MaxBytesReader(w, r.Body, maxPutBody)}
	pm, err := readPutModel(body, root, spoolName)
	if body.over {
		putTooLarge(w)
		return
	}
	if err != nil {
		jsonError(w, http.StatusBadRequest, "%v", err)
		return
	}
	_, existed := root.Stat(sp)
	created := existed != nil
	parent := path.Dir(sp)
	if pst, err := root.Stat(parent); err != nil || !pst.IsDir() {
		jsonError(w, http.StatusInternalServerError, "Unexpected error while saving file: %s [Errno 2] No such file or directory", p)
		return
	}
	switch pm.typ {
	case "directory":
		if st, err := root.Stat(sp); err == nil {
			if !st.IsDir() {
				jsonError(w, http.StatusBadRequest, "Not a directory: %s", p)
				return
			}
		} else if err := root.Mkdir(sp, 0o755); err != nil {
			jsonError(w, http.StatusInternalServerError, "Unexpected error while saving file: %s %v", p, err)
			return
		}
	case "file", "notebook":
		if pm.chunk != nil && pm.typ != "file" {
			jsonError(w, http.StatusBadRequest, "File type %q is not supported for large file transfer", pm.typ)
			return
		}
		if !pm.hasContent {
			jsonError(w, http.StatusBadRequest, "No file content provided")
			return
		}
		if st, err := root.Stat(sp); err == nil && st.IsDir() {
			jsonError(w, http.StatusInternalServerError, "Unexpected error while saving file: %s [Errno 21] Is a directory", p)
			return
		}
		if pm.chunk == nil || *pm.chunk == 1 {
			if err := root.Rename(spoolName, sp); err != nil {
				jsonError(w, http.StatusInternalServerError, "Unexpected error while saving file: %s %v", p, err)
				return
			}
		} else if err := appendFile(root, spoolName, sp); err != nil {
			jsonError(w, http.StatusInternalServerError, "Unexpected error while saving file: %s %v", p, err)
			return
		}
	default:
		jsonError(w, http.StatusBadRequest, "No file type provided")
		return
	}
	st, err := root.Stat(sp)
	if err != nil {
		jsonError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeModel(w, status, modelOf(p, st))
}

func spoolPath(root *os.Root) (string, error) {
	if err := root.MkdirAll(".spool", 0o700); err != nil {
		return "", err
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return ".spool/" + hex.EncodeToString(b), nil
}

func appendFile(root *os.Root, from, to string) error {
	src, err := root.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := root.OpenFile(to, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

type putFields struct {
	typ, format string
	chunk       *int
	hasContent  bool
}

// readPutModel parses a contents PUT body without holding "content" in
// memory: the JSON string is decoded (base64 or text) into the spool file
// as it streams. The other fields are small and read as JSON values.
func readPutModel(body io.Reader, root *os.Root, spool string) (putFields, error) {
	var pf putFields
	br := bufio.NewReaderSize(body, 256<<10)
	if err := expect(br, '{'); err != nil {
		return pf, err
	}
	var rawContent bool // the content was spooled still JSON-escaped
	for first := true; ; first = false {
		c, err := skipSpace(br)
		if err != nil {
			return pf, err
		}
		if c == '}' {
			break
		}
		if !first {
			if c != ',' {
				return pf, errors.New("malformed JSON body")
			}
			if c, err = skipSpace(br); err != nil {
				return pf, err
			}
		}
		if c != '"' {
			return pf, errors.New("malformed JSON body")
		}
		_ = br.UnreadByte()
		kraw, err := readValue(br, 1<<10)
		if err != nil {
			return pf, err
		}
		var key string
		if err := json.Unmarshal(kraw, &key); err != nil {
			return pf, errors.New("malformed JSON key")
		}
		if err := expect(br, ':'); err != nil {
			return pf, err
		}
		c, err = skipSpace(br)
		if err != nil {
			return pf, err
		}
		_ = br.UnreadByte()
		if key == "content" && c == '"' {
			_, _ = br.ReadByte()
			f, err := root.Create(spool)
			if err != nil {
				return pf, err
			}
			sr := &jsonStringReader{br: br}
			// The decoder yields at most 768 bytes a Read: buffer the
			// writes, or every one is a system call.
			bw := bufio.NewWriterSize(f, 1<<20)
			if pf.format == "base64" {
				_, err = io.Copy(bw, base64.NewDecoder(base64.StdEncoding, sr))
			} else {
				_, err = io.Copy(bw, sr)
				rawContent = true
			}
			if ferr := bw.Flush(); err == nil {
				err = ferr
			}
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err == nil && pf.format == "base64" && sr.escaped {
				err = errors.New("escaped characters in base64 content")
			}
			if err != nil {
				return pf, fmt.Errorf("bad content: %v", err)
			}
			pf.hasContent = true
			continue
		}
		raw, err := readValue(br, 1<<20)
		if err != nil {
			return pf, err
		}
		switch key {
		case "type":
			_ = json.Unmarshal(raw, &pf.typ)
		case "format":
			_ = json.Unmarshal(raw, &pf.format)
		case "chunk":
			var n int
			if string(raw) != "null" {
				if err := json.Unmarshal(raw, &n); err != nil {
					return pf, errors.New("chunk is not an integer")
				}
				pf.chunk = &n
			}
		case "content":
			if string(raw) != "null" {
				pf.hasContent = true
				if err := root.WriteFile(spool, raw, 0o600); err != nil {
					return pf, err
				}
				rawContent = true
			}
		}
	}
	if pf.hasContent && rawContent {
		if err := decodeSpool(root, spool, pf.format); err != nil {
			return pf, err
		}
	}
	return pf, nil
}

// decodeSpool turns spooled JSON-escaped content into the file's bytes:
// text is unescaped, base64 decoded, anything else (a notebook's JSON)
// kept as is.
func decodeSpool(root *os.Root, spool, format string) error {
	raw, err := root.ReadFile(spool)
	if err != nil {
		return err
	}
	if len(raw) > maxInlineContent {
		return errors.New("content too large")
	}
	var out []byte
	switch format {
	case "text", "base64":
		var s string
		if err := json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &s); err != nil {
			if err := json.Unmarshal(raw, &s); err != nil {
				return errors.New("content is not a string")
			}
		}
		out = []byte(s)
		if format == "base64" {
			if out, err = base64.StdEncoding.DecodeString(s); err != nil {
				return fmt.Errorf("Encoding error: %v", err)
			}
		}
	case "":
		return errors.New("Must specify format of file contents as 'text' or 'base64'")
	default:
		out = raw
	}
	return root.WriteFile(spool, out, 0o600)
}

func (s *Server) renameModel(w http.ResponseWriter, r *http.Request, root *os.Root, id, sp, p string) {
	var body struct {
		Path string `json:"path"`
	}
	b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err := json.Unmarshal(b, &body); err != nil || body.Path == "" {
		jsonError(w, http.StatusBadRequest, "Bad Request")
		return
	}
	np := cleanJupyterPath(body.Path)
	nsp, ok := remotePath(id, np)
	if !ok || isHidden(p) || isHidden(np) {
		jsonError(w, http.StatusBadRequest, "Cannot rename file or directory %q", p)
		return
	}
	if _, err := root.Lstat(sp); err != nil {
		jsonError(w, http.StatusNotFound, "file or directory does not exist: %q", p)
		return
	}
	if np != p {
		if _, err := root.Lstat(nsp); err == nil {
			jsonError(w, http.StatusConflict, "File already exists: %s", np)
			return
		}
		if err := root.Rename(sp, nsp); err != nil {
			jsonError(w, http.StatusInternalServerError, "Unknown error renaming file: %s %v", p, err)
			return
		}
	}
	st, err := root.Stat(nsp)
	if err != nil {
		jsonError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	writeModel(w, http.StatusOK, modelOf(np, st))
}

// --- sessions and kernels ---

type jSession struct {
	ID     string  `json:"id"`
	Path   string  `json:"path"`
	Name   string  `json:"name"`
	Type   string  `json:"type"`
	Kernel jKernel `json:"kernel"`
}

type jKernel struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	LastActivity   string `json:"last_activity"`
	ExecutionState string `json:"execution_state"`
	Connections    int    `json:"connections"`
}

// liveRuns returns the session's executions still running. Call with s.mu
// held.
func (ss *sessionState) liveRuns() []*execRecord {
	var out []*execRecord
	for rec := range ss.running {
		if rec.interrupt != nil {
			out = append(out, rec)
		}
	}
	return out
}

func (ss *sessionState) kernelID() string {
	if ss.kernel == "" {
		ss.kernel = uuid.NewString()
	}
	return ss.kernel
}

func (s *Server) serveSessions(w http.ResponseWriter, r *http.Request, id string) {
	if r.Method != http.MethodGet {
		jsonError(w, http.StatusMethodNotAllowed, "Method Not Allowed")
		return
	}
	now := jupyterTime(s.clock())
	s.mu.Lock()
	rt := s.lookupRuntime("runtimes/" + id)
	out := []jSession{}
	if rt != nil {
		for _, ss := range rt.sessions {
			sid := ss.name[strings.LastIndexByte(ss.name, '/')+1:]
			out = append(out, jSession{ID: sid, Path: sid, Name: sid, Type: "notebook",
				Kernel: jKernel{ID: ss.kernelID(), Name: "python3", LastActivity: now, ExecutionState: "idle"}})
		}
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

func (s *Server) serveKernel(w http.ResponseWriter, r *http.Request, id, rest string) {
	kid, action, _ := strings.Cut(rest, "/")
	s.mu.Lock()
	rt := s.lookupRuntime("runtimes/" + id)
	found := false
	if rt != nil {
		for _, ss := range rt.sessions {
			if ss.kernel != "" && ss.kernel == kid {
				found = true
			}
		}
	}
	if found && action == "interrupt" && r.Method == http.MethodPost {
		if s.interrupts == nil {
			s.interrupts = map[string]int{}
		}
		s.interrupts[kid]++
		// Stop the session's running code, as SIGINT to the kernel does.
		for _, ss := range rt.sessions {
			if ss.kernel != kid {
				continue
			}
			for _, rec := range ss.liveRuns() {
				rec.interrupted = true
				rec.interrupt()
			}
		}
	}
	s.mu.Unlock()
	if !found {
		jsonError(w, http.StatusNotFound, "Kernel does not exist: %s", kid)
		return
	}
	switch {
	case action == "interrupt" && r.Method == http.MethodPost:
		w.WriteHeader(http.StatusNoContent)
	case action == "channels":
		s.serveChannels(w, r, kid)
	default:
		jsonError(w, http.StatusNotFound, "Not Found")
	}
}

// --- small JSON reading helpers ---

func skipSpace(br *bufio.Reader) (byte, error) {
	for {
		c, err := br.ReadByte()
		if err != nil {
			return 0, errors.New("truncated JSON body")
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c, nil
		}
	}
}

func expect(br *bufio.Reader, want byte) error {
	c, err := skipSpace(br)
	if err != nil {
		return err
	}
	if c != want {
		return fmt.Errorf("malformed JSON body: want %q, got %q", want, c)
	}
	return nil
}

// readValue reads one JSON value (string, number, literal, object or
// array) of at most max bytes and returns its raw text.
func readValue(br *bufio.Reader, max int) ([]byte, error) {
	var out []byte
	depth, inStr, esc := 0, false, false
	for {
		c, err := br.ReadByte()
		if err != nil {
			return nil, errors.New("truncated JSON body")
		}
		if len(out) >= max {
			return nil, errors.New("JSON value too large")
		}
		if len(out) == 0 && (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			continue
		}
		if !inStr && depth == 0 && len(out) > 0 && (c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t') {
			_ = br.UnreadByte()
			return out, nil
		}
		out = append(out, c)
		switch {
		case inStr && esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case inStr && c == '"':
			inStr = false
			if depth == 0 {
				return out, nil
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
			if depth == 0 {
				return out, nil
			}
		}
	}
}

// jsonStringReader yields the bytes of a JSON string (still escaped) up
// to its closing quote, which it consumes.
type jsonStringReader struct {
	br      *bufio.Reader
	esc     bool
	escaped bool
	done    bool
}

func (s *jsonStringReader) Read(p []byte) (int, error) {
	if s.done {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	if s.br.Buffered() == 0 {
		if _, err := s.br.Peek(1); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
	}
	buf, _ := s.br.Peek(min(len(p), s.br.Buffered()))
	n := 0
	for n < len(buf) {
		if s.esc {
			s.esc = false
			n++
			continue
		}
		j := bytes.IndexAny(buf[n:], "\"\\")
		if j < 0 {
			n = len(buf)
			break
		}
		n += j
		if buf[n] == '"' {
			copy(p, buf[:n])
			_, _ = s.br.Discard(n + 1)
			s.done = true
			return n, nil
		}
		s.escaped, s.esc = true, true
		n++
	}
	copy(p, buf[:n])
	_, _ = s.br.Discard(n)
	return n, nil
}
