//go:build !unix

package transfer

// sourceOpenFlags: outside Unix there are no FIFOs in the file system to
// block an open.
const sourceOpenFlags = 0
