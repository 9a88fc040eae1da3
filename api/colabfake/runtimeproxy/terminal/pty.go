//go:build unix

package terminal

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/creack/pty"
)

// ptyShell is a real shell in a pty (Config.Shell): $SHELL, else
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
	if s.opts.Dir != nil {
		cmd.Dir = s.opts.Dir(id)
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

// utf8Chunks turns a byte stream into valid UTF-8 strings for JSON
// frames: a sequence split between two reads is held for the next one.
type utf8Chunks struct{ held []byte }

func (u *utf8Chunks) next(p []byte) string {
	b := append(u.held, p...)
	u.held = nil
	end := len(b)
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				end = i
			}
			break
		}
	}
	u.held = append([]byte(nil), b[end:]...)
	return strings.ToValidUTF8(string(b[:end]), "\uFFFD")
}
