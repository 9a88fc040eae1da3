package jupyter

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/colabdash/colabdash/api"
)

// maxDepth bounds recursive walks (a listing loop cannot recurse forever).
const maxDepth = 64

// maxEntries bounds how many entries a recursive walk visits.
const maxEntries = 1_000_000

// safeName checks a listed entry before it is used as one local path
// component (field case 46): the name must be non-empty, not "." or "..",
// without "/", "\" or NUL, not absolute, and the entry's path must be
// exactly dir + "/" + name. It returns the name or an error quoting the
// offending entry.
func safeName(e Model, dir string) (string, error) {
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
// component as safeName requires (not empty, ".", "..", no separator or
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

// within reports whether target, after cleaning, stays inside dest.
func within(dest, target string) bool {
	rel, err := filepath.Rel(filepath.Clean(dest), filepath.Clean(target))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Location is one side of a copy: a local path, or a path on a runtime.
type Location struct {
	// Runtime is the runtime id ("rt-abc"); "" for a local path.
	Runtime string
	// Path is the local path as given, or the remote path cleaned as
	// Colab's Jupyter server writes it, relative to the runtime's root
	// "/" ("content/x" for /content/x, "" for / itself; "content" when
	// the argument had no path at all: "rt-abc:").
	Path string
	// Dir is true when the argument ended in "/" (a directory is meant).
	Dir bool
}

// Remote reports whether l is on a runtime.
func (l Location) Remote() bool { return l.Runtime != "" }

// String writes l back as an argument: "rt-abc:content/x" or the local path.
func (l Location) String() string {
	if l.Remote() {
		return l.Runtime + ":" + l.Path
	}
	return l.Path
}

// ErrNotRemote is returned by ParseLocation for an argument that has no
// RUNTIME: prefix at all.
var ErrNotRemote = errors.New("not a RUNTIME:PATH argument")

// ParseLocation reads a cp/ls/rm argument (field case 53):
//
//   - an argument that exists as a local path is local, whatever it holds
//     ("backup-12:30.tar");
//   - "./x", "/x", "../x" and Windows drive paths ("C:\x", "C:/x") are
//     local;
//   - RUNTIME:PATH, where RUNTIME is a runtime id ("rt-abc") or name
//     ("runtimes/rt-abc"), is remote; PATH is absolute on the runtime, with
//     or without its leading slash ("/content/x" = "content/x"; "/" is the
//     runtime's root, as Colab's Jupyter root is, so "/etc" and "/" name
//     the same tree), and only an empty PATH ("rt-abc:") means the default
//     directory "content". PATH is cleaned here, once, as path.Clean
//     does and never above the root ("/content/../data.csv" is
//     "data.csv", "/content/../.." is ""), so every check (Removable)
//     and every output sees the path the server would act on;
//   - anything else is local.
//
// requireRemote makes a non-remote argument an error (ls, rm); then
// anything before the first colon is RUNTIME, left for the caller to
// resolve, since no local path can be meant.
func ParseLocation(arg string, requireRemote bool) (Location, error) {
	local := Location{Path: arg, Dir: strings.HasSuffix(arg, "/") || strings.HasSuffix(arg, string(filepath.Separator))}
	if !requireRemote {
		if _, err := os.Lstat(arg); err == nil {
			return local, nil
		}
		if strings.HasPrefix(arg, "./") || strings.HasPrefix(arg, "../") || strings.HasPrefix(arg, "/") || isDrivePath(arg) {
			return local, nil
		}
	}
	i := strings.IndexByte(arg, ':')
	if i < 0 {
		if requireRemote {
			return Location{}, fmt.Errorf("%q is not RUNTIME:PATH (e.g. rt-abc:/content/data.csv)", arg)
		}
		return local, nil
	}
	rt := strings.TrimPrefix(arg[:i], "runtimes/")
	if requireRemote {
		// Where only a runtime can be meant, RUNTIME is whatever comes
		// before the colon: resolving it (an id, a prefix) is the
		// caller's, with the same errors as every verb ("rt-" is an
		// ambiguous prefix, "RT-C" no runtime).
		if strings.TrimSpace(rt) == "" {
			return Location{}, fmt.Errorf("%q: no RUNTIME before the colon (e.g. rt-abc:/content/data.csv)", arg)
		}
	} else if api.ValidateID(rt) != nil {
		return local, nil
	}
	p := arg[i+1:]
	if p == "" {
		return Location{Runtime: rt, Path: "content", Dir: true}, nil
	}
	last := p[strings.LastIndexByte(p, '/')+1:]
	loc := Location{Runtime: rt, Path: CleanPath(p), Dir: strings.HasSuffix(p, "/") || last == "." || last == ".."}
	if loc.Path == "" {
		loc.Dir = true // "/": the root
	}
	return loc, nil
}

// CleanPath is a remote path with "." and ".." resolved as path.Clean
// resolves them, never above the runtime's root, written as CleanRemote
// writes it: "/content/sub/../x/" → "content/x", "/content/../.." → ""
// (the root).
func CleanPath(p string) string {
	return strings.TrimPrefix(path.Clean("/"+p), "/")
}

// isDrivePath reports a Windows drive path: "C:\…", "C:/…" or "C:".
func isDrivePath(s string) bool {
	if len(s) < 2 || s[1] != ':' {
		return false
	}
	c := s[0] | 0x20
	return c >= 'a' && c <= 'z' && (len(s) == 2 || s[2] == '\\' || s[2] == '/')
}
