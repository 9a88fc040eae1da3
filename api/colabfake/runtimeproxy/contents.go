package runtimeproxy

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"os"
	"sort"
	"strings"
	"unicode/utf8"
)

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
		deleteModel(w, root, sp, p)
	default:
		jsonError(w, http.StatusMethodNotAllowed, "Method Not Allowed")
	}
}

// deleteModel is DELETE without the trash, as jupyter-server does it:
// what the path resolves to decides (a link to nothing does not exist,
// 404); a directory, or a link to one, that is not empty is refused
// (400); an empty real directory is removed, but a link to an empty
// directory is not (jupyter-server's shutil.rmtree refuses a link: 500);
// anything else, a link to a file included, is unlinked, the link itself.
func deleteModel(w http.ResponseWriter, root *os.Root, sp, p string) {
	st, err := root.Stat(sp)
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
		if lst, err := root.Lstat(sp); err == nil && lst.Mode()&fs.ModeSymlink != 0 {
			jsonError(w, http.StatusInternalServerError, "Unhandled error")
			return
		}
	}
	if err := root.Remove(sp); err != nil {
		jsonError(w, http.StatusInternalServerError, "Unexpected error while deleting %s: %v", p, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) getModel(w http.ResponseWriter, r *http.Request, root *os.Root, sp, p string) {
	st, err := root.Stat(sp)
	if err != nil || isHidden(p) {
		jsonError(w, http.StatusNotFound, "file or directory does not exist: %q", p)
		return
	}
	if badType(w, r, p, st.IsDir()) {
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

// linkModel is a listing's model of the symbolic link at sp (store path;
// p its Jupyter path, fi its Lstat), as jupyter-server lists one: the
// type of what it points to inside the store, the link's own times (and,
// for a file, its own size); ok is false for a broken link or one to
// anything else, which jupyter-server leaves out.
func linkModel(root *os.Root, sp, p string, fi fs.FileInfo) (jmodel, bool) {
	st, err := root.Stat(sp)
	if err != nil || (!st.IsDir() && !st.Mode().IsRegular()) {
		return jmodel{}, false
	}
	m := modelOf(p, fi)
	if st.IsDir() {
		m.Type, m.Size, m.Mimetype = "directory", nil, nil
	}
	return m, true
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

// badType answers a GET whose ?type= the path p is not as jupyter-server
// does (400, reason "bad type"), before any content is read: a client
// listing with type=directory learns that p is a file without the file
// being read. It reports whether it answered.
func badType(w http.ResponseWriter, r *http.Request, p string, dir bool) bool {
	switch t := r.URL.Query().Get("type"); {
	case t == "" || (t == "directory") == dir:
		return false
	case t != "directory" && t != "file" && t != "notebook":
		jsonErrorReason(w, http.StatusBadRequest, "bad type", "Type %s is invalid", t)
	case dir:
		jsonErrorReason(w, http.StatusBadRequest, "bad type", "%s is a directory, not a %s", p, t)
	default:
		jsonErrorReason(w, http.StatusBadRequest, "bad type", "%s is not a directory", p)
	}
	return true
}
