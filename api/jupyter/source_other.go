//go:build !unix

package jupyter

// sourceOpenFlags: outside Unix there are no FIFOs in the file system to
// block an open.
const sourceOpenFlags = 0
