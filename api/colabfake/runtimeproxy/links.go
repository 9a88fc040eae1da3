package runtimeproxy

import (
	"errors"
	"io/fs"
	"strings"
)

// ListLinks lists the symbolic links below runtime id's directory p (a
// Jupyter path, "content/out"), walking without following any, as the
// link check colabdash runs through execute_code does on a runtime
// (colabfake's execute_code of a program starting with its LinkMarker):
// rootLink is true when p itself is a link; links are relative to p,
// "/"-separated. An error when p is not a directory of the store (the
// emulator's own file store only; a real upstream's files are not
// visible here).
func (s *Server) ListLinks(id, p string) (rootLink bool, links []string, err error) {
	root, err := s.fileRoot()
	if err != nil {
		return false, nil, err
	}
	if id == "" || strings.ContainsAny(id, "/\\.") {
		return false, nil, errors.New("no such runtime")
	}
	s.ensureTree(root, id)
	sp, ok := remotePath(id, p)
	if !ok {
		return false, nil, errors.New("no such directory")
	}
	fi, err := root.Lstat(sp)
	if err != nil {
		return false, nil, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return true, nil, nil
	}
	if !fi.IsDir() {
		return false, nil, errors.New("not a directory")
	}
	err = fs.WalkDir(root.FS(), sp, func(q string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			links = append(links, strings.TrimPrefix(q, sp+"/"))
		}
		return nil
	})
	return false, links, err
}

// CountHidden is how many names below the directory p of runtime id
// start with "." (a hidden directory counted once, not walked), as
// colabdash's link check counts them on a runtime: what a recursive
// download cannot copy. 0 when p cannot be read.
func (s *Server) CountHidden(id, p string) int {
	root, err := s.fileRoot()
	if err != nil || id == "" || strings.ContainsAny(id, "/\\.") {
		return 0
	}
	sp, ok := remotePath(id, p)
	if !ok {
		return 0
	}
	n := 0
	_ = fs.WalkDir(root.FS(), sp, func(q string, d fs.DirEntry, err error) error {
		if err != nil || q == sp || !strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		n++
		if d.IsDir() {
			return fs.SkipDir
		}
		return nil
	})
	return n
}
