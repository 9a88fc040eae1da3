package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jsonnum"
)

// Model types of the Jupyter contents API.
const (
	TypeFile      = "file"
	TypeDirectory = "directory"
	TypeNotebook  = "notebook"
)

// Model is a Jupyter contents-API model (jupyter_server
// services/contents): one file, notebook or directory. Size is in bytes
// and -1 when the server did not say (directories). Times are UTC, zero
// when absent or unparseable. Content is only set by List (the entries)
// and is raw JSON otherwise.
type Model struct {
	Name         string
	Path         string
	Type         string
	Size         int64
	LastModified time.Time
	Created      time.Time
	Writable     bool
	Mimetype     string
	Entries      []Model
}

// IsDir reports whether m is a directory.
func (m Model) IsDir() bool { return m.Type == TypeDirectory }

type modelWire struct {
	Name         string          `json:"name"`
	Path         string          `json:"path"`
	Type         string          `json:"type"`
	Size         *jsonnum.Int    `json:"size"` // any JSON number, rounded
	LastModified string          `json:"last_modified"`
	Created      string          `json:"created"`
	Writable     bool            `json:"writable"`
	Mimetype     *string         `json:"mimetype"`
	Content      json.RawMessage `json:"content"`
}

func (w modelWire) model() Model {
	m := Model{Name: w.Name, Path: w.Path, Type: w.Type, Size: -1, Writable: w.Writable}
	if w.Size != nil {
		m.Size = int64(*w.Size)
	}
	if w.Mimetype != nil {
		m.Mimetype = *w.Mimetype
	}
	m.LastModified, _ = api.ParseExpireTime(w.LastModified)
	m.Created, _ = api.ParseExpireTime(w.Created)
	return m
}

// ParseModel reads the model of a contents reply body (a PUT's answer,
// which jupyter-server writes without content but with size and
// last_modified), after any anti-XSSI prefix. Size is -1 when the reply
// has none. Errors: an *Error of kind ErrServer when b is not a model.
func ParseModel(b []byte) (Model, error) {
	var w modelWire
	if err := json.Unmarshal(TrimXSSI(b), &w); err != nil || w.Type == "" {
		return Model{Size: -1}, &Error{Kind: ErrServer, Message: "reply is not a contents model"}
	}
	return w.model(), nil
}

// Stat returns the model of a remote path without its content (GET
// /api/contents/{path}?content=0). Errors: ErrNotFound, ErrHidden,
// ErrRuntimeGone, ErrRefused, ErrTransport, ErrServer.
func (c *Client) Stat(ctx context.Context, p string) (Model, error) {
	var w modelWire
	err := c.callJSON(ctx, &Request{Op: "stat", Method: http.MethodGet, Path: "api/contents/" + EscapePath(p),
		Query: url.Values{"content": {"0"}}, Retry404: true, Remote: CleanRemote(p)}, &w)
	if err != nil {
		return Model{}, err
	}
	return w.model(), nil
}

// List returns a remote directory with its entries in Entries, in the
// server's order (GET /api/contents/{path}?content=1), decoded as a
// stream (ListEach) and bounded by Options.MaxEntries and ListTimeout.
// Hidden entries are left out by Jupyter. Errors: those of ListEach.
func (c *Client) List(ctx context.Context, p string) (Model, error) {
	entries := []Model{}
	m, _, err := c.ListEach(ctx, p, func(e Model) error {
		entries = append(entries, e)
		return nil
	})
	m.Entries = entries
	return m, err
}

// Mkdir creates one remote directory (PUT {"type":"directory"}); its
// parent must exist. An existing directory is fine (Jupyter answers 200).
// Errors: ErrNoParent, ErrNotDir (a file is in the way), and those of
// Stat.
func (c *Client) Mkdir(ctx context.Context, p string) (Model, error) {
	remote := CleanRemote(p)
	var w modelWire
	err := c.callJSON(ctx, &Request{Op: "mkdir", Method: http.MethodPut, Path: "api/contents/" + EscapePath(p),
		Body: jsonBody(map[string]string{"type": TypeDirectory}), Retry404: true, Remote: remote}, &w)
	if err != nil {
		return Model{}, c.explainWrite(ctx, "mkdir", remote, err)
	}
	return w.model(), nil
}

// MkdirAll creates a remote directory and any missing parents, one level
// per request, in order ("content/a", then "content/a/b"), each
// tolerating "already exists".
func (c *Client) MkdirAll(ctx context.Context, p string) error {
	remote := CleanRemote(p)
	if remote == "" {
		return nil
	}
	if m, err := c.Stat(ctx, remote); err == nil {
		if !m.IsDir() {
			return &Error{Op: "mkdir", Runtime: c.id, Path: remote, Kind: ErrNotDir}
		}
		return nil
	} else if !errors.Is(err, ErrNotFound) {
		return err
	}
	if parent := path.Dir(remote); parent != "." {
		if err := c.MkdirAll(ctx, parent); err != nil {
			return err
		}
	}
	_, err := c.Mkdir(ctx, remote)
	return err
}

// explainWrite turns the 500 Jupyter answers for a missing parent
// directory (or a directory in the way) into ErrNoParent / ErrNotDir.
func (c *Client) explainWrite(ctx context.Context, op, remote string, err error) error {
	var je *Error
	if !errors.As(err, &je) || (je.Kind != ErrServer && je.Kind != ErrNotFound) {
		return err
	}
	parent := path.Dir(remote)
	if parent == "." {
		return err
	}
	m, serr := c.Stat(ctx, parent)
	switch {
	case errors.Is(serr, ErrNotFound):
		return &Error{Op: op, Runtime: c.id, Path: parent, Kind: ErrNoParent}
	case serr == nil && !m.IsDir():
		return &Error{Op: op, Runtime: c.id, Path: parent, Kind: ErrNotDir}
	}
	return err
}

// Delete removes a remote file or empty directory (DELETE). Errors:
// ErrNotFound, ErrServer (e.g. "directory not empty"), and those of Stat.
func (c *Client) Delete(ctx context.Context, p string) error {
	return c.callJSON(ctx, &Request{Op: "delete", Method: http.MethodDelete, Path: "api/contents/" + EscapePath(p),
		Retry404: true, Remote: CleanRemote(p)}, nil)
}

// Removable is the one rule for what colabdash may remove on a runtime
// (RemoveAll, the files pane's delete, `colabdash rm`): never the root,
// /content itself, nor any other top-level directory (/usr, /etc,
// /content's siblings), whose loss breaks the runtime or everything on
// it. p is a remote path with or without its leading slash
// ("content/x", "/content/x"); "." and ".." segments count as the server
// resolves them ("content/sub/.." is /content). runtime is the runtime
// id for the error's text. It returns nil when p may be removed, else an
// *Error of kind ErrProtected naming the path ("delete rt-abc:/content:
// refusing to remove the root, /content itself or a top-level
// directory"; the root is "rt-abc:/").
func Removable(runtime, p string) error {
	clean := CleanPath(p)
	if strings.Contains(clean, "/") {
		return nil // at least two levels down: /content/x, /usr/lib
	}
	return &Error{Op: "delete", Runtime: runtime, Path: rootSlash(clean), Kind: ErrProtected}
}

// rootSlash is a cleaned path for an Error: the root, "", as "/", so its
// text names it ("rt-abc:/"); an Error without a Path names no path.
func rootSlash(clean string) string {
	if clean == "" {
		return "/"
	}
	return clean
}

// Creatable is Removable's rule for what an upload may create: nothing
// directly in the runtime's root ("/data.csv", "/proj"), since colabdash
// could not remove it afterwards; anything at least two levels down
// ("/content/x", "/tmp/x"). p is as for Removable. It returns nil, or an
// *Error of kind ErrTopLevel naming the cleaned path.
func Creatable(runtime, p string) error {
	clean := CleanPath(p)
	if strings.Contains(clean, "/") {
		return nil
	}
	return &Error{Op: "upload", Runtime: runtime, Path: rootSlash(clean), Kind: ErrTopLevel}
}

// RemoveAll removes a remote file, a directory with everything in it, or
// a symbolic link (the link only, as GNU rm removes one), in ONE DELETE
// of the path named: the server removes exactly that name (a stock
// jupyter-server moves it, link or directory, to its trash; an empty
// directory or a file it removes), and nothing it reaches through a link
// is touched. colabdash never walks a tree to delete it entry by entry:
// the contents API lists a link to a directory as a directory, so a walk
// would delete what a link below the path points to (a sibling, the
// parent, the root). When the server refuses a non-empty directory
// (trash off, or on another disk than its trash) the answer is an
// ErrNotRemoved *Error before anything is removed; the message says how
// to remove it through the runtime instead. A link to an empty
// directory that such a server cannot delete is an ErrServer error.
// progress, when set, is called with the path once it is removed. A path
// Removable refuses (/content itself, a top-level directory) is an
// ErrProtected error before any request.
func (c *Client) RemoveAll(ctx context.Context, p string, progress func(string)) error {
	if err := Removable(c.id, p); err != nil {
		return err
	}
	remote := CleanPath(p) // the path Removable checked
	m, err := c.Stat(ctx, remote)
	if err != nil {
		return err
	}
	if err := c.Delete(ctx, remote); err != nil {
		var je *Error
		if m.IsDir() && errors.As(err, &je) && je.Status == http.StatusBadRequest {
			return &Error{Op: "delete", Runtime: c.id, Path: remote, Kind: ErrNotRemoved,
				Message: "remove it on the runtime with exec and Python's shutil.rmtree, which follows no link"}
		}
		if m.IsDir() && errors.As(err, &je) && je.Kind == ErrServer {
			je.Message = strings.TrimPrefix(je.Message+"; ", "; ") + "a link to an empty directory that this server cannot delete?"
		}
		return err
	}
	if progress != nil {
		progress(remote)
	}
	return nil
}

// Rename moves a remote file or directory (PATCH {"path": to}). Errors:
// ErrExists when to exists, ErrNotFound, and those of Stat.
func (c *Client) Rename(ctx context.Context, from, to string) (Model, error) {
	var w modelWire
	err := c.callJSON(ctx, &Request{Op: "rename", Method: http.MethodPatch, Path: "api/contents/" + EscapePath(from),
		Body: jsonBody(map[string]string{"path": CleanRemote(to)}), Retry404: true, Remote: CleanRemote(from)}, &w)
	if err != nil {
		return Model{}, err
	}
	return w.model(), nil
}
