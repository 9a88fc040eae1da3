//go:build !unix

package jupyter

// partOpenFlags: outside Unix there is no O_NOFOLLOW; openPart's Lstat
// check before the open is the guard against a link at the part path.
const partOpenFlags = 0
