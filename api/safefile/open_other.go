//go:build !unix

package safefile

import "os"

// openNoBlock opens path for reading; outside Unix there are no FIFOs in
// the file system to block on, and Read's timeout still bounds the wait.
func openNoBlock(path string) (*os.File, error) { return os.Open(path) }
