package runtimeproxy

// Reading and writing a runtime's files from inside the emulator, as a
// program running on the runtime would (the emulator's jobs): the same
// files the contents API and /files/ serve.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"time"
)

// errUpstream: the files are a real Jupyter server's, not the emulator's.
var errUpstream = errors.New("the emulator forwards to a Jupyter server; its files are that server's")

// storePath opens the store and maps runtime's Jupyter path p to its
// place there (runtime: "runtimes/ID" or ID), creating the runtime's tree
// when create is set.
func (s *Server) storePath(runtime, p string, create bool) (*os.Root, string, error) {
	if s.upstream != nil {
		return nil, "", errUpstream
	}
	id := strings.TrimPrefix(runtime, "runtimes/")
	if id == "" || strings.ContainsAny(id, "/\\.") {
		return nil, "", fmt.Errorf("bad runtime %q", runtime)
	}
	root, err := s.fileRoot()
	if err != nil {
		return nil, "", err
	}
	sp, ok := remotePath(id, cleanJupyterPath(p))
	if !ok || sp == id {
		return nil, "", fmt.Errorf("bad path %q", p)
	}
	if create {
		s.ensureTree(root, id)
	}
	return root, sp, nil
}

// ReadFile returns at most max bytes of the runtime's file p (a Jupyter
// path such as "content/train.py") from the emulator's own store.
// Errors: fs.ErrNotExist when there is no such file, a bad path, the
// store's; always one with Config.JupyterUpstream.
func (s *Server) ReadFile(runtime, p string, max int64) ([]byte, error) {
	root, sp, err := s.storePath(runtime, p, false)
	if err != nil {
		return nil, err
	}
	f, err := root.Open(sp)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max))
}

// WriteFile replaces the runtime's file p with data atomically (a hidden
// file beside it renamed over it, as a program's os.replace), creating
// its directories and the runtime's tree. Its modification time (the
// contents model's last_modified) is modTime, or the emulator's now when
// zero. Errors as ReadFile's.
func (s *Server) WriteFile(runtime, p string, data []byte, modTime time.Time) error {
	root, sp, err := s.storePath(runtime, p, true)
	if err != nil {
		return err
	}
	if err := root.MkdirAll(path.Dir(sp), 0o755); err != nil {
		return err
	}
	tmp := path.Join(path.Dir(sp), "."+path.Base(sp)+".tmp")
	if err := root.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	if err := s.touch(root, tmp, modTime); err != nil {
		_ = root.Remove(tmp)
		return err
	}
	if err := root.Rename(tmp, sp); err != nil {
		_ = root.Remove(tmp)
		return err
	}
	return nil
}

// AppendFile appends data to the runtime's file p, creating it (and its
// directories) when missing, and returns the file's size before the
// append; its modification time is set as WriteFile's. Errors as
// ReadFile's.
func (s *Server) AppendFile(runtime, p string, data []byte, modTime time.Time) (int64, error) {
	root, sp, err := s.storePath(runtime, p, true)
	if err != nil {
		return 0, err
	}
	if err := root.MkdirAll(path.Dir(sp), 0o755); err != nil {
		return 0, err
	}
	f, err := root.OpenFile(sp, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return 0, err
	}
	st, err := f.Stat()
	if err == nil {
		_, err = f.Write(data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, err
	}
	return st.Size(), s.touch(root, sp, modTime)
}

// touch sets sp's modification time to modTime, or the emulator's now.
func (s *Server) touch(root *os.Root, sp string, modTime time.Time) error {
	if modTime.IsZero() {
		modTime = s.clock()
	}
	return root.Chtimes(sp, modTime, modTime)
}
