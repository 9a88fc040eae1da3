package proxy

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/colabdash/colabdash/api"
)

// errorReply is what an error response said: Jupyter's message (and the
// last line of its traceback, for a 500 "Unhandled error"), and whether
// the reply came from Jupyter itself rather than from a layer in front
// of it (the Colab runtime proxy, or another proxy on the way).
type errorReply struct {
	msg, traceback string
	jupyter        bool
	html           bool // the body is an HTML page
	size           int  // bytes of body read (at most 64 KiB)
}

// jupyterMarks are phrases of jupyter_server's own HTML error page (the
// "Jupyter Server" template: title and 404 text), measured on a stock
// server.
var jupyterMarks = []string{"<title>Jupyter", "You are requesting a page that does not exist", "id=\"jupyter_server\"", "id='jupyter_server'"}

// readErrorBody reads (up to 64 KiB) and closes an error response, and
// tells Jupyter's own answers from the proxy's. Jupyter's are: a JSON
// error ({"message": …}, its API routes), or any reply carrying its
// fingerprint: Tornado's Server header, Jupyter's Content-Security-Policy
// report URI, or its HTML error page (unknown routes and /files/ misses
// on a stock server answer 404 text/html). Anything else
// (the Colab proxy's bare 404 with an empty body, a front end's HTML or
// plain-text page) is not Jupyter's.
func readErrorBody(resp *http.Response) errorReply {
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	b = TrimXSSI(b)
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	rep := errorReply{size: len(b), html: ct == "text/html" || bytes.HasPrefix(bytes.TrimSpace(b), []byte("<"))}
	var j struct {
		Message   *string `json:"message"`
		Traceback string  `json:"traceback"`
	}
	if (ct == "application/json" || bytes.HasPrefix(bytes.TrimSpace(b), []byte("{"))) && json.Unmarshal(b, &j) == nil && j.Message != nil {
		rep.msg, rep.jupyter = *j.Message, true
		if lines := strings.Split(strings.TrimSpace(j.Traceback), "\n"); len(lines) > 0 {
			rep.traceback = strings.TrimSpace(lines[len(lines)-1])
		}
		return rep
	}
	rep.jupyter = FromJupyter(resp.Header, b)
	return rep
}

// FromJupyter reports whether an error reply (its headers and the start
// of its body, XSSI prefix and all) came from the runtime's Jupyter server
// rather than from the proxy in front of it: a Jupyter JSON error
// ({"message": …}), Tornado's Server header, Jupyter's
// Content-Security-Policy report URI, or its HTML error page.
// The Colab proxy's own 404 has an empty body and none of these.
func FromJupyter(h http.Header, body []byte) bool {
	if strings.HasPrefix(h.Get("Server"), "TornadoServer") || strings.Contains(h.Get("Content-Security-Policy"), "/api/security/csp-report") {
		return true
	}
	b := bytes.TrimSpace(TrimXSSI(body))
	var j struct {
		Message *string `json:"message"`
	}
	if bytes.HasPrefix(b, []byte("{")) && json.Unmarshal(b, &j) == nil && j.Message != nil {
		return true
	}
	ct, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	if ct == "text/html" || bytes.HasPrefix(b, []byte("<")) {
		for _, m := range jupyterMarks {
			if bytes.Contains(b, []byte(m)) {
				return true
			}
		}
	}
	return false
}

// permissionHint says what a 500 "Unhandled error" on reading a path
// most often means: Jupyter left the name out of its
// listing and cannot read it either.
const permissionHint = "the runtime's Jupyter server cannot read it (permission denied: a file, or a symbolic link's target, it may not read)"

// statusError turns an HTTP error status into an *Error with the kind a
// user can act on.
func (c *Client) statusError(op, path string, status int, rep errorReply) *Error {
	e := &Error{Op: op, Runtime: c.id, Path: path, Status: status, Message: api.OneLine(c.o.Redactor.Redact(rep.msg), 200)}
	switch {
	case status == http.StatusNotFound && rep.jupyter:
		e.Kind = ErrNotFound
		if hidden(path) {
			e.Kind = ErrHidden
		}
		e.Message = ""
	case status == http.StatusNotFound:
		e.Kind = ErrRefused
		e.Message = "the runtime proxy answered 404 (its token was renewed)"
	case status == http.StatusConflict:
		e.Kind = ErrExists
	case status == http.StatusForbidden:
		e.Kind = ErrPermission
	case status == http.StatusRequestEntityTooLarge && !rep.jupyter:
		e.Kind = ErrServer
		e.Message = "a proxy between this machine and the runtime refused a request that large (HTTP 413, not from Jupyter)"
	case status == http.StatusInternalServerError && rep.jupyter && rep.msg == "Unhandled error":
		e.Kind = ErrServer
		tb := api.OneLine(c.o.Redactor.Redact(rep.traceback), 200)
		if strings.Contains(tb, "PermissionError") || strings.Contains(tb, "Permission denied") || (tb == "" && (op == "stat" || op == "list" || op == "download")) {
			e.Kind = ErrPermission
			e.Message = permissionHint
		} else if tb != "" {
			e.Message = "Unhandled error: " + tb
		}
	default:
		e.Kind = ErrServer
	}
	e.Message = tidyMessage(e.Kind, path, e.Message)
	return e
}

// tidyMessage is a Jupyter error message fit to follow an Error's
// "OP RUNTIME:/PATH: KIND": a leading repetition of KIND's words is
// dropped (jupyter_server's 403 reads "Permission denied: content/x",
// which said "permission denied: Permission denied: …"), and path, which
// Jupyter writes relative to its root ("content/x"), is written absolute
// wherever it stands as a word, as every message writes remote paths; a
// message that was only the path adds nothing and is dropped.
func tidyMessage(kind error, path, msg string) string {
	if k := kind.Error(); len(msg) > len(k) && strings.EqualFold(msg[:len(k)], k) && msg[len(k)] == ':' {
		msg = strings.TrimSpace(msg[len(k)+1:])
	}
	rel := CleanRemote(path)
	if rel == "" {
		return msg
	}
	if msg == rel || msg == "/"+rel {
		return ""
	}
	var b strings.Builder
	for rest := msg; ; {
		i := strings.Index(rest, rel)
		if i < 0 {
			b.WriteString(rest)
			break
		}
		at, end := len(msg)-len(rest)+i, i+len(rel) // rel's offset in msg, its end in rest
		b.WriteString(rest[:i])
		if wordEdge(msg, at-1) && wordEdge(rest, end) {
			b.WriteByte('/')
		}
		b.WriteString(rel)
		rest = rest[end:]
	}
	return b.String()
}

// wordEdge reports whether s[i] ends or starts a path word: there is no
// such byte (i out of range), or it is a space, a quote or a colon.
func wordEdge(s string, i int) bool {
	return i < 0 || i >= len(s) || strings.IndexByte(" \t'\"`:,;()", s[i]) >= 0
}
