//go:build unix

package colabfake

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	"github.com/creack/pty"
)

// ptyShell is a real shell in a pty (Options.TTYShell): $SHELL, else
// /bin/bash, else /bin/sh, started in the runtime's content directory with
// TERM=xterm-256color, as on Colab. A resize sets the pty's size
// (TIOCSWINSZ), which sends the shell SIGWINCH.
type ptyShell struct {
	cmd  *exec.Cmd
	f    *os.File
	once sync.Once
	wait chan struct{}
}

func (s *Server) startPTYShell(id string) (ttyBackend, error) {
	sh := os.Getenv("SHELL")
	if sh == "" {
		sh = "/bin/bash"
		if _, err := os.Stat(sh); err != nil {
			sh = "/bin/sh"
		}
	}
	cmd := exec.Command(sh)
	if root, err := s.fileRoot(); err == nil {
		s.ensureTree(root, id)
		cmd.Dir = filepath.Join(root.Name(), id, "content")
	}
	cmd.Env = append(os.Environ(), "TERM=xterm-256color", "COLABDASH_EMULATED_RUNTIME="+id)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 80, Rows: 24})
	if err != nil {
		return nil, err
	}
	p := &ptyShell{cmd: cmd, f: f, wait: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.wait) }()
	return p, nil
}

func (p *ptyShell) input(s string) { _, _ = p.f.WriteString(s) }

func (p *ptyShell) resize(cols, rows int) {
	if cols > 0 && rows > 0 && cols <= 0xffff && rows <= 0xffff {
		_ = pty.Setsize(p.f, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
	}
}

func (p *ptyShell) run(ctx context.Context, out func(string) error) {
	var u utf8Chunks
	buf := make([]byte, 32<<10)
	for {
		n, err := p.f.Read(buf)
		if n > 0 {
			if s := u.next(buf[:n]); s != "" && out(s) != nil {
				return
			}
		}
		if err != nil {
			// EIO once the shell exited and the pty closed.
			if !errors.Is(err, os.ErrClosed) {
				<-p.wait
			}
			return
		}
		if ctx.Err() != nil {
			return
		}
	}
}

func (p *ptyShell) close() {
	p.once.Do(func() {
		if p.cmd.Process != nil {
			_ = p.cmd.Process.Kill()
		}
		_ = p.f.Close()
	})
}
