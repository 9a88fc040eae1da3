//go:build unix

package notify

import (
	"os/exec"
	"syscall"
)

// setGroup starts cmd in a process group of its own and, when its
// context ends, kills the whole group: a command that hangs is ended with
// every process it started.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
