package runtimeproxy

import (
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/colabdash/colabdash/api"
)

// trashDir is where a runtime's Jupyter server keeps what DELETE moved
// away with delete_to_trash on: the freedesktop.org trash of root, the
// user Colab's Jupyter server runs as (send2trash: files/ and info/).
const trashDir = "root/.local/share/Trash"

// deleteToTrash is DELETE with Config.DeleteToTrash: the file or the
// whole directory (non-empty ones too, hidden entries included) moves to
// the runtime's trash with an info/NAME.trashinfo beside it, as
// send2trash does; names already there get " 1", " 2"… before their
// extension. A symbolic link moves itself, never what it points to; one
// that points to nothing does not exist for jupyter-server (404).
func (s *Server) deleteToTrash(w http.ResponseWriter, root *os.Root, id, sp, p string) {
	if _, err := root.Stat(sp); err != nil {
		jsonError(w, http.StatusNotFound, "file or directory does not exist: %q", p)
		return
	}
	files, info := id+"/"+trashDir+"/files", id+"/"+trashDir+"/info"
	if err := root.MkdirAll(files, 0o700); err != nil {
		jsonError(w, http.StatusInternalServerError, "Unexpected error while deleting %s: %v", p, err)
		return
	}
	_ = root.MkdirAll(info, 0o700)
	name := path.Base(p)
	ext := path.Ext(name)
	base := strings.TrimSuffix(name, ext)
	dest := name
	for n := 1; ; n++ {
		_, ferr := root.Lstat(files + "/" + dest)
		_, ierr := root.Lstat(info + "/" + dest + ".trashinfo")
		if ferr != nil && ierr != nil {
			break
		}
		dest = base + " " + strconv.Itoa(n) + ext
	}
	when := s.clock().Format("2006-01-02T15:04:05")
	_ = root.WriteFile(info+"/"+dest+".trashinfo",
		[]byte("[Trash Info]\nPath="+(&url.URL{Path: "/" + p}).EscapedPath()+"\nDeletionDate="+when+"\n"), 0o600)
	if err := root.Rename(sp, files+"/"+dest); err != nil {
		jsonError(w, http.StatusInternalServerError, "Unexpected error while deleting %s: %v", p, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// DiskUsage is the bytes of every regular file in runtime id's tree,
// hidden ones and the trash included: what `du -sb /` would say of the
// emulated runtime.
func (s *Server) DiskUsage(id string) int64 {
	root, err := s.fileRoot()
	if err != nil {
		return 0
	}
	var n int64
	_ = fs.WalkDir(root.FS(), api.LastSegment(id), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, ierr := d.Info(); ierr == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// TrashNames lists what runtime id's trash holds (the names in its
// files/ directory), for tests.
func (s *Server) TrashNames(id string) []string {
	root, err := s.fileRoot()
	if err != nil {
		return nil
	}
	ents, _ := fs.ReadDir(root.FS(), api.LastSegment(id)+"/"+trashDir+"/files")
	out := make([]string, 0, len(ents))
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// PurgeTrash empties runtime id's trash and returns the bytes it held
// (colabfake's execute_code of a program starting with its PurgeMarker).
func (s *Server) PurgeTrash(id string) int64 {
	root, err := s.fileRoot()
	if err != nil || id == "" || strings.ContainsAny(id, "/\\.") {
		return 0
	}
	var n int64
	for _, sub := range []string{"files", "info", "expunged"} {
		dir := id + "/" + trashDir + "/" + sub
		_ = fs.WalkDir(root.FS(), dir, func(_ string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if fi, ierr := d.Info(); ierr == nil {
					n += fi.Size()
				}
			}
			return nil
		})
		_ = root.RemoveAll(dir)
	}
	return n
}
