package runtimeproxy

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"strings"
	"time"
)

// serveJupyter serves one request of runtime id's Jupyter server; rest is
// the decoded path below the runtime's URL. It is the one routing table
// of what a runtime answers, Colab's own routes beside Jupyter's
// (api/colab/resources, resources.go).
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
	case rest == ResourcesPath:
		s.serveResources(w, r, id)
	case rest == "api/sessions":
		s.serveSessions(w, r, id)
	case rest == "api/kernels":
		s.serveKernels(w, r, id)
	case rest == "api/terminals":
		s.serveTerminals(w, r, id)
	case strings.HasPrefix(rest, "api/kernels/"):
		s.serveKernel(w, r, id, strings.TrimPrefix(rest, "api/kernels/"))
	default:
		jsonError(w, http.StatusNotFound, "Not Found")
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

// jsonError writes Jupyter's error body {"message": …, "reason": null}.
func jsonError(w http.ResponseWriter, status int, format string, a ...any) {
	jsonErrorReason(w, status, nil, format, a...)
}

// jsonErrorReason is jsonError with jupyter-server's "reason" (a word
// such as "bad type", or nil).
func jsonErrorReason(w http.ResponseWriter, status int, reason any, format string, a ...any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"message": fmt.Sprintf(format, a...), "reason": reason})
}
