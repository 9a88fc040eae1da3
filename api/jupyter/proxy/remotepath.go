package proxy

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// EscapePath percent-encodes each segment of a remote path ("content/a
// #1.txt" → "content/a%20%231.txt"); a leading slash is dropped and "%"
// is encoded, so a name is never decoded twice.
func EscapePath(p string) string {
	segs := strings.Split(CleanRemote(p), "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// Segment is a name a server chose (a terminal's name, a kernel's id)
// escaped as exactly one URL path segment, to be placed after a fixed
// route ("api/terminals/" + seg): "/", "?", "#" and "%" are
// percent-encoded (url.PathEscape), so the name can neither add a
// segment, start a query or fragment, nor be decoded into one of those
// later ("%2e%2e" is sent as "%252e%252e"). ok is false for "", "." and
// "..", which no escaping keeps below the route: such a name is refused,
// never sent.
func Segment(name string) (seg string, ok bool) {
	if name == "" || name == "." || name == ".." {
		return "", false
	}
	return url.PathEscape(name), true
}

// segment is Segment for op, or an *Error (ErrUnsafeName) naming what
// (e.g. "terminal name") when the name cannot be one segment.
func (c *Client) segment(op, what, name string) (string, error) {
	seg, ok := Segment(name)
	if !ok {
		return "", &Error{Op: op, Runtime: c.id, Kind: ErrUnsafeName,
			Message: fmt.Sprintf("the server's %s %q is not a single URL path segment: refused", what, name)}
	}
	return seg, nil
}

// CleanRemote writes a remote path as Colab documents it: no leading or
// trailing slash, no empty segments ("/content//a/" → "content/a"). It
// does not resolve "." or ".."; those are passed to the server as names.
func CleanRemote(p string) string {
	if (p == "" || p[0] != '/' && p[len(p)-1] != '/') && !strings.Contains(p, "//") {
		return p // clean already (every entry of a listing): no copy
	}
	parts := strings.Split(p, "/")
	out := parts[:0]
	for _, s := range parts {
		if s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, "/")
}

// CleanPath is a remote path with "." and ".." resolved as path.Clean
// resolves them, never above the runtime's root, written as CleanRemote
// writes it: "/content/sub/../x/" → "content/x", "/content/../.." → ""
// (the root).
func CleanPath(p string) string {
	return strings.TrimPrefix(path.Clean("/"+p), "/")
}

// DefaultDir is the directory a relative remote path is relative to, as
// on Colab itself: /content (Jupyter's path "content").
const DefaultDir = "content"

// ResolvePath is the one rule for a remote path a user typed: an absolute
// path ("/etc/x") is on the runtime's root, a relative one ("x",
// "sample_data/", "../etc") is relative to /content, and "" is /content
// itself. "." and ".." are resolved as CleanPath resolves them, never
// above the root ("../../.." is the root). The result is written as
// CleanRemote writes it ("content/x", "" for the root).
func ResolvePath(p string) string {
	if strings.HasPrefix(p, "/") {
		return CleanPath(p)
	}
	return CleanPath(DefaultDir + "/" + p)
}

// hidden reports whether a path has a segment starting with "." (Jupyter
// neither lists nor serves those).
func hidden(p string) bool {
	for _, s := range strings.Split(CleanRemote(p), "/") {
		if strings.HasPrefix(s, ".") {
			return true
		}
	}
	return false
}

// MaxDepth is the one depth limit of a recursive copy, in both
// directions: the directories below the one copied, 128 levels. An
// upload refuses a deeper local tree before its first request, a
// download stops where the remote tree goes deeper (a listing loop cannot
// recurse forever), both with DepthText's words. (A remove never walks:
// see RemoveAll.)
const MaxDepth = 128

// DepthText is the refusal of a tree deeper than MaxDepth.
func DepthText() string { return fmt.Sprintf("directory tree deeper than %d levels", MaxDepth) }

// SafeName checks a listed entry before it is used as one local path
// component: the name must be non-empty, not "." or "..",
// without "/", "\" or NUL, not absolute, and the entry's path must be
// exactly dir + "/" + name. It returns the name or an error quoting the
// offending entry.
func SafeName(e Model, dir string) (string, error) {
	n := e.Name
	bad := badComponent(n)
	if bad == "" && e.Path != "" && CleanRemote(e.Path) != CleanRemote(dir+"/"+n) {
		bad = fmt.Sprintf("has path %q, not under %q", e.Path, dir)
	}
	if bad != "" {
		return "", fmt.Errorf("entry %q %s", n, bad)
	}
	return n, nil
}

// badComponent says why n cannot be one path component ("" when it can):
// empty, "." or "..", a separator or NUL, absolute.
func badComponent(n string) string {
	switch {
	case n == "" || n == "." || n == "..":
		return "is empty, \".\" or \"..\""
	case strings.ContainsAny(n, "/\\\x00"):
		return "contains a path separator or NUL"
	case filepath.IsAbs(n) || filepath.VolumeName(n) != "":
		return "is absolute"
	}
	return ""
}

// LocalName checks a name that came from the runtime before it becomes a
// local file name (a single file downloaded into a directory keeps its
// remote name; so does every entry of a recursive download): one path
// component as SafeName requires (not empty, ".", "..", no separator or
// NUL, not absolute), valid UTF-8, and free of control characters (C0,
// DEL, C1: an ESC would reach every terminal that lists the directory)
// and of bidirectional overrides and isolates (U+202A–U+202E,
// U+2066–U+2069: "exe.txt" shown for "txt.exe"), the characters
// ui/termtext makes inert on screen. It returns nil, or an error saying
// what is wrong without the name ("contains control characters"): the
// caller names it as it shows names. A
// name it refuses can still be downloaded to a local file name the user
// gives.
func LocalName(n string) error {
	bad := badComponent(n)
	if bad == "" && !utf8.ValidString(n) {
		bad = "is not valid UTF-8"
	}
	for _, r := range n {
		if bad != "" {
			break
		}
		switch {
		case r < 0x20 || (r >= 0x7f && r <= 0x9f):
			bad = "contains control characters"
		case (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
			bad = "contains bidirectional overrides"
		}
	}
	if bad != "" {
		return errors.New(bad)
	}
	return nil
}
