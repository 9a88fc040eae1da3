//go:build !unix

package terminal

import "errors"

func (s *Server) startPTYShell(string) (ttyBackend, error) {
	return nil, errors.New("--tty-shell needs a Unix pty")
}
