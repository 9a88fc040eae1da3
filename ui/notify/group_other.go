//go:build !unix

package notify

import "os/exec"

// setGroup leaves cmd as it is: without Unix process groups the context
// kills the command itself.
func setGroup(cmd *exec.Cmd) {}
