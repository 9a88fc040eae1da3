package jupyter

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// Location is one side of a copy: a local path, or a path on a runtime.
type Location struct {
	// Runtime is the runtime id ("rt-abc"); "" for a local path.
	Runtime string
	// Path is the local path as given, or the remote path cleaned as
	// Colab's Jupyter server writes it, relative to the runtime's root
	// "/" ("content/x" for /content/x, "" for / itself; "content" when
	// the argument had no path at all, "rt-abc:", or "rt-abc:x" is
	// "content/x": see ResolvePath).
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

// ParseLocation reads a cp/ls/rm argument:
//
//   - an argument that exists as a local path is local, whatever it holds
//     ("backup-12:30.tar");
//   - "./x", "/x", "../x" and Windows drive paths ("C:\x", "C:/x") are
//     local;
//   - RUNTIME:PATH, where RUNTIME is a runtime id ("rt-abc") or name
//     ("runtimes/rt-abc"), is remote; PATH is read by ResolvePath, the
//     one rule: absolute on the runtime when it starts with "/" ("/" is
//     the runtime's root, as Colab's Jupyter root is, so "/etc" is /etc),
//     else relative to /content ("x" is /content/x, "" /content itself).
//     PATH is cleaned here, once, as path.Clean does and never above the
//     root ("/content/../data.csv" is "data.csv", "../.." is ""), so
//     every check (Removable) and every output sees the path the server
//     would act on;
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
		return Location{Runtime: rt, Path: proxy.DefaultDir, Dir: true}, nil
	}
	last := p[strings.LastIndexByte(p, '/')+1:]
	loc := Location{Runtime: rt, Path: proxy.ResolvePath(p), Dir: strings.HasSuffix(p, "/") || last == "." || last == ".."}
	if loc.Path == "" {
		loc.Dir = true // "/": the root
	}
	return loc, nil
}

// isDrivePath reports a Windows drive path: "C:\…", "C:/…" or "C:".
func isDrivePath(s string) bool {
	if len(s) < 2 || s[1] != ':' {
		return false
	}
	c := s[0] | 0x20
	return c >= 'a' && c <= 'z' && (len(s) == 2 || s[2] == '\\' || s[2] == '/')
}
