package runtimeproxy

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// files is the emulator's per-runtime file store, created on first use.
type files struct {
	once sync.Once
	dir  string // root of every runtime's tree
	root *os.Root
	err  error
	own  bool // dir was made by the emulator: removed on Close
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
// although the directory is hidden.
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

// ReplaceFile gives the runtime's file p (a Jupyter path such as
// "content/a.bin") the new content data, as another program on the
// runtime rewriting it between two downloads would (runtime: its name
// "runtimes/ID" or its ID). Its modification
// time (the contents model's last_modified) becomes modTime, or now when
// modTime is zero; a caller passing the old time models a rewrite that
// keeps it (cp -p, rsync -t, an unpacked archive). The emulator's own
// file tree only (not with Config.JupyterUpstream).
func (s *Server) ReplaceFile(runtime string, p string, data []byte, modTime time.Time) error {
	if s.upstream != nil {
		return fmt.Errorf("ReplaceFile: the emulator forwards to a Jupyter server; change the file there")
	}
	root, err := s.fileRoot()
	if err != nil {
		return err
	}
	sp, ok := remotePath(strings.TrimPrefix(runtime, "runtimes/"), cleanJupyterPath(p))
	if !ok {
		return fmt.Errorf("ReplaceFile: bad path %q", p)
	}
	f, err := root.OpenFile(sp, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if modTime.IsZero() {
		modTime = s.clock()
	}
	return root.Chtimes(sp, modTime, modTime)
}

// ModTime returns the modification time (last_modified) of the
// runtime's file p in the emulator's own file tree.
func (s *Server) ModTime(runtime string, p string) (time.Time, error) {
	root, err := s.fileRoot()
	if err != nil {
		return time.Time{}, err
	}
	sp, ok := remotePath(strings.TrimPrefix(runtime, "runtimes/"), cleanJupyterPath(p))
	if !ok {
		return time.Time{}, fmt.Errorf("ModTime: bad path %q", p)
	}
	st, err := root.Stat(sp)
	if err != nil {
		return time.Time{}, err
	}
	return st.ModTime(), nil
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
	if !s.opts.DemoFiles {
		return
	}
	for p, body := range demoFiles {
		_ = root.MkdirAll(id+"/"+path.Dir(p), 0o755)
		_ = root.WriteFile(id+"/"+p, []byte(body), 0o644)
	}
}

// contentDir returns runtime id's /content directory on this machine
// (creating its tree first), where a real terminal shell starts; "" when
// the file store is unusable.
func (s *Server) contentDir(id string) string {
	root, err := s.fileRoot()
	if err != nil {
		return ""
	}
	s.ensureTree(root, id)
	return filepath.Join(root.Name(), id, "content")
}
