package transfer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// Jupyter's contents API lists a symbolic link to a directory as a plain
// directory, so a recursive download cannot tell from its listings
// whether it is about to walk out of the tree it was named (into a
// sibling, the parent, / or a linked Google Drive folder). Before the
// walk, colabdash asks the runtime itself: LinkCode runs through
// execute_code and lists every link below the root with lstat, and the
// walk skips each one.

// LinkMarker is LinkCode's first line, which the emulator recognizes.
const LinkMarker = "# colabdash: list symbolic links"

// MaxLinks bounds the links LinkCode reports: past it the answer is
// truncated and the download refused.
const MaxLinks = 10000

// linkPrefix starts LinkCode's one output line.
const linkPrefix = "colabdash-links "

// maxLinkOutput bounds the line ParseLinks reads (bytes).
const maxLinkOutput = 8 << 20

// linkCode is the fixed Python; %s is the root, a JSON string literal
// (valid Python), and %d MaxLinks. It walks without following links
// (os.walk followlinks=False lists a link to a directory among the
// directories but never enters it), checks every entry with lstat, and
// prints one JSON line: root_link (the root itself is a link), links
// (paths relative to the root, "/"-separated), truncated (more than
// MaxLinks links, more than 4 MiB of their names or more than a million
// entries), error (the root could not be read), hidden (how many names
// below the root start with ".": Jupyter neither lists nor serves them,
// so the download will not copy them; a hidden directory counts once and
// is not walked). No name is left in the kernel.
const linkCode = LinkMarker + `
def _colabdash_links(root, cap):
    import os, json, stat
    out = {"root_link": False, "links": [], "truncated": False, "error": "", "hidden": 0}
    try:
        st = os.lstat(root)
        out["root_link"] = stat.S_ISLNK(st.st_mode)
        if not out["root_link"] and not stat.S_ISDIR(st.st_mode):
            out["error"] = "not a directory"
    except OSError as e:
        out["error"] = str(e)
    if out["error"] == "" and not out["root_link"]:
        errs = []
        def onerror(e):
            if os.path.normpath(getattr(e, "filename", "") or "") == os.path.normpath(root):
                errs.append(str(e))
        seen, size = 0, 0
        for dirpath, dirnames, filenames in os.walk(root, onerror=onerror, followlinks=False):
            for n in dirnames + filenames:
                seen += 1
                if n.startswith("."):
                    out["hidden"] += 1
                    continue
                p = os.path.join(dirpath, n)
                try:
                    link = stat.S_ISLNK(os.lstat(p).st_mode)
                except OSError:
                    continue
                if link:
                    rel = os.path.relpath(p, root)
                    size += len(rel)
                    if len(out["links"]) >= cap or size > 4 << 20:
                        out["truncated"] = True
                        break
                    out["links"].append(rel)
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            if out["truncated"] or seen > 1000000:
                out["truncated"] = True
                break
        if errs:
            out["error"] = errs[0]
    print("` + linkPrefix + `" + json.dumps(out))
try:
    _colabdash_links(%s, %d)
finally:
    del _colabdash_links
`

// LinkCode is the Python that lists the symbolic links below root, a
// path on the runtime's file system ("/content/out"; on Colab the
// Jupyter server serves "/", so a contents path with a leading slash).
// root goes into the code as a JSON string literal, never spliced raw;
// a root that is not valid UTF-8 or holds a NUL is an error.
// ParseLinks reads what the code prints.
func LinkCode(root string) (string, error) {
	if !utf8.ValidString(root) || strings.ContainsRune(root, 0) || root == "" {
		return "", fmt.Errorf("%q is not a path the link check can name", root)
	}
	lit, err := json.Marshal(root)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf(linkCode, lit, MaxLinks), nil
}

// Links is what LinkCode found below a directory.
type Links struct {
	// Root is true when the directory named is itself a symbolic link.
	Root bool
	// Paths are the links below it, relative to it ("a/b", "/"-separated).
	Paths []string
	// Hidden is how many names below it start with "." (a hidden
	// directory counted once, not what it holds): Jupyter's listings
	// never show them, so a download does not copy them.
	Hidden int
}

// LinkCheck finds the symbolic links below the directory remote (a
// cleaned contents path, "content/out") on the runtime, by running
// LinkCode there. An error means it could not tell.
type LinkCheck func(ctx context.Context, remote string) (Links, error)

// ParseLinks reads LinkCode's output (stdout of execute_code): an error
// when it is not the one line LinkCode prints, when the root could not
// be read, or when the answer was truncated (more than MaxLinks links).
func ParseLinks(stdout string) (Links, error) {
	if len(stdout) > maxLinkOutput {
		return Links{}, errors.New("the link check printed too much")
	}
	var line string
	for _, l := range strings.Split(stdout, "\n") {
		if s, ok := strings.CutPrefix(strings.TrimRight(l, "\r"), linkPrefix); ok {
			if line != "" {
				return Links{}, errors.New("the link check printed two answers")
			}
			line = s
		}
	}
	if line == "" {
		return Links{}, errors.New("the link check printed no answer")
	}
	var out struct {
		RootLink  *bool    `json:"root_link"`
		Links     []string `json:"links"`
		Truncated bool     `json:"truncated"`
		Error     string   `json:"error"`
		Hidden    int      `json:"hidden"`
	}
	if err := json.Unmarshal([]byte(line), &out); err != nil || out.RootLink == nil || out.Hidden < 0 {
		return Links{}, errors.New("the link check's answer is unreadable")
	}
	switch {
	case out.Error != "":
		return Links{}, errors.New("the link check could not read the directory: " + out.Error)
	case out.Truncated:
		return Links{}, fmt.Errorf("more than %d symbolic links (or entries past the check's bounds) below the directory", MaxLinks)
	case len(out.Links) > MaxLinks:
		return Links{}, fmt.Errorf("more than %d symbolic links below the directory", MaxLinks)
	}
	for _, p := range out.Links {
		if p == "" || strings.HasPrefix(p, "/") || p == ".." || strings.HasPrefix(p, "../") {
			return Links{}, fmt.Errorf("the link check named %q, not a path inside the directory", p)
		}
	}
	return Links{Root: *out.RootLink, Paths: out.Links, Hidden: out.Hidden}, nil
}

// checkLinks runs o.Links on the directory src before a recursive
// download (nothing when o.FollowLinks or no check is set): the set of
// links to skip, relative to src, and how many hidden names src holds
// (-1 when no check ran: unknown); a *proxy.Error (ErrLinks) when the
// check failed or src itself is a link.
func (c *Copier) checkLinks(ctx context.Context, src string, o CopyOptions) (map[string]bool, int, error) {
	if o.FollowLinks || o.Links == nil {
		return nil, -1, nil
	}
	refuse := func(why string) error {
		return &proxy.Error{Op: "download", Runtime: c.id, Path: src, Kind: proxy.ErrLinks,
			Message: why + "; -L copies it anyway, following links (as cp -L)"}
	}
	l, err := o.Links(ctx, src)
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		return nil, 0, refuse("colabdash could not check it for symbolic links on the runtime (Jupyter lists a link to a directory as a directory): " + oneLine(err.Error()))
	}
	if l.Root {
		return nil, 0, refuse("it is a symbolic link, which may lead anywhere on the runtime")
	}
	set := make(map[string]bool, len(l.Paths))
	for _, p := range l.Paths {
		set[p] = true
	}
	return set, l.Hidden, nil
}

// oneLine cuts s to one line of at most 300 bytes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
