// Package realjupyter starts a real jupyter-server (Debian's
// python3-jupyter-server, with python3-ipykernel for kernels) on
// loopback, for the tests that put it behind the emulator's runtime proxy
// (colabfake.Options.JupyterUpstream). It is the one place the tests start
// it.
//
// The server never picks or is handed a port number: the test process
// opens the listening socket on 127.0.0.1:0 and passes it to the server
// as file descriptor 3, which a few lines of Python hand to the server's
// HTTP server in place of its own bind (jupyter-server 1.23 has no option
// for an inherited socket, and with --port=0 it binds a port it does not
// report). So no other process can take the port between its choice and
// the server's bind.
package realjupyter

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Options say which server to start.
type Options struct {
	// Kernels requires ipykernel besides jupyter_server (tests that start
	// kernels).
	Kernels bool
	// Trash turns FileContentsManager.delete_to_trash on (it needs
	// send2trash); off, a delete removes the file at once.
	Trash bool
	// AsNobody runs the server as the user nobody (uid 65534), its root
	// and home owned by nobody: it needs root and setpriv.
	AsNobody bool
}

// Server is a running jupyter-server.
type Server struct {
	// URL is the server's base URL, "http://127.0.0.1:PORT/" (no token:
	// authentication is off).
	URL string
	// Root is the server's root_dir, a new temporary directory holding
	// an empty "content" directory.
	Root string
	// Home is the server's HOME and Jupyter directories (Root/.home,
	// hidden from the contents API); its log is Home/jupyter.log.
	Home string
	cmd  *exec.Cmd
	logf *os.File
	exit chan struct{} // closed when the process has ended
}

// ErrUnavailable wraps why a server cannot be started here at all (a
// module not installed, no root for AsNobody): tests skip on it, where
// any other start error is a failure.
var ErrUnavailable = errors.New("real jupyter-server unavailable")

// ErrNotRoot wraps why AsNobody cannot run here: it needs root (and
// setpriv). CI runs as root, so there it is a failure.
var ErrNotRoot = errors.New("running jupyter-server as nobody needs root and setpriv")

// Python is the interpreter with jupyter_server importable:
// $COLABDASH_JUPYTER_PYTHON, else /usr/bin/python3 (Debian's package).
func Python() string {
	if p := os.Getenv("COLABDASH_JUPYTER_PYTHON"); p != "" {
		return p
	}
	return "/usr/bin/python3"
}

// launcher runs jupyter-server on the listening socket inherited as file
// descriptor 3 instead of binding one of its own (serverapp's TCP bind
// is replaced; everything else is the stock server). Its arguments are
// jupyter-server's.
const launcher = `import socket, sys
from jupyter_server import serverapp
listener = socket.socket(fileno=3)
listener.setblocking(False)
def bind(self):
    self.http_server.add_socket(listener)
    self.port = listener.getsockname()[1]
    return True
serverapp.ServerApp._bind_http_server_tcp = bind
serverapp.launch_new_instance()
`

// readyWithin bounds the wait for a started server's first answer (a
// cold start of Python and its modules on a busy machine).
const readyWithin = 60 * time.Second

// Start starts a server as o asks and returns once it answers
// GET api/status with 200. The error wraps ErrUnavailable when a needed
// module or privilege is missing; any other error is a failed start
// (with the server's log).
func Start(o Options) (*Server, error) {
	prefix, err := check(o)
	if err != nil {
		return nil, err
	}
	s := &Server{exit: make(chan struct{})}
	if s.Root, err = os.MkdirTemp("", "colabdash-jupyter-"); err != nil {
		return nil, err
	}
	s.Home = filepath.Join(s.Root, ".home")
	if err := s.makeDirs(o.AsNobody); err != nil {
		s.Stop()
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.Stop()
		return nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	sock, err := ln.(*net.TCPListener).File() // a duplicate: still listening after ln.Close
	ln.Close()
	if err != nil {
		s.Stop()
		return nil, err
	}
	defer sock.Close() // the server holds its own copy once started
	args := append(prefix, Python(), "-c", launcher, "--allow-root", "--no-browser", "--ip=127.0.0.1",
		fmt.Sprintf("--port=%d", port), "--ServerApp.token=", "--ServerApp.password=",
		"--ServerApp.disable_check_xsrf=True", "--ServerApp.root_dir="+s.Root,
		fmt.Sprintf("--FileContentsManager.delete_to_trash=%v", map[bool]string{true: "True", false: "False"}[o.Trash]))
	s.cmd = exec.Command(args[0], args[1:]...)
	s.cmd.ExtraFiles = []*os.File{sock}
	s.cmd.Env = append(os.Environ(), "HOME="+s.Home, "XDG_DATA_HOME=", "JUPYTER_RUNTIME_DIR="+s.Home,
		"JUPYTER_CONFIG_DIR="+s.Home, "JUPYTER_DATA_DIR="+s.Home)
	if s.logf, err = os.Create(filepath.Join(s.Home, "jupyter.log")); err != nil {
		s.Stop()
		return nil, err
	}
	s.cmd.Stdout, s.cmd.Stderr = s.logf, s.logf
	if err := s.cmd.Start(); err != nil {
		s.cmd = nil
		s.Stop()
		return nil, fmt.Errorf("starting jupyter-server: %w", err)
	}
	go func() { _ = s.cmd.Wait(); close(s.exit) }()
	s.URL = fmt.Sprintf("http://127.0.0.1:%d/", port)
	if err := s.waitReady(); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// check returns the command prefix o needs (setpriv for AsNobody) or why
// the server is unavailable here.
func check(o Options) (prefix []string, err error) {
	py := Python()
	modules := "jupyter_server"
	if o.Kernels {
		modules += ", ipykernel"
	}
	if o.Trash {
		modules += ", send2trash"
	}
	if err := exec.Command(py, "-c", "import "+modules).Run(); err != nil {
		return nil, fmt.Errorf("%w: import %s failed for %s (apt-get install python3-jupyter-server python3-ipykernel python3-send2trash): %v",
			ErrUnavailable, modules, py, err)
	}
	if !o.AsNobody {
		return nil, nil
	}
	sp, err := exec.LookPath("setpriv")
	if os.Geteuid() != 0 || err != nil {
		return nil, fmt.Errorf("%w (uid %d here; setpriv: %v)", ErrNotRoot, os.Geteuid(), err)
	}
	return []string{sp, "--reuid=nobody", "--regid=nogroup", "--clear-groups"}, nil
}

// makeDirs makes Root/content and Home, readable by all, and owned by
// nobody for AsNobody.
func (s *Server) makeDirs(asNobody bool) error {
	for _, d := range []string{s.Root, filepath.Join(s.Root, "content"), s.Home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		if err := os.Chmod(d, 0o755); err != nil {
			return err
		}
		if asNobody {
			if err := os.Chown(d, 65534, 65534); err != nil {
				return err
			}
		}
	}
	return nil
}

// waitReady polls GET api/status until it answers 200, the process ends,
// or readyWithin passes.
func (s *Server) waitReady() error {
	hc := &http.Client{Timeout: 5 * time.Second}
	deadline := time.Now().Add(readyWithin)
	for {
		if resp, err := hc.Get(s.URL + "api/status"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-s.exit:
			return fmt.Errorf("jupyter-server exited before it answered: %s", s.Log())
		case <-time.After(100 * time.Millisecond): // a poll, not a wait for the server
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("jupyter-server did not answer within %v: %s", readyWithin, s.Log())
		}
	}
}

// Log is what the server wrote so far.
func (s *Server) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.Home, "jupyter.log"))
	return string(b)
}

// Stop kills the server, waits for it and removes its root.
func (s *Server) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
		<-s.exit
	}
	if s.logf != nil {
		s.logf.Close()
	}
	if s.Root != "" {
		_ = os.RemoveAll(s.Root)
	}
}
