//go:build !unix

package transfer

import "os"

// openInPlace opens target, a file inPlace accepts, for writing in place
// (appending). (No FIFOs at a path here: the unix version's care is not
// needed.)
func openInPlace(target string) (*os.File, error) {
	return os.OpenFile(target, os.O_WRONLY|os.O_APPEND, 0)
}
