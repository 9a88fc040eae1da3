package runtimeproxy

// A front end's ways between the client and the runtime: nginx's HTML 413
// past Config.ProxyMaxBody, and Colab's anti-XSSI guard
// ")]}'\n" before every JSON reply with Config.XSSI.

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// nginx413 is the page nginx answers a body over client_max_body_size
// with: HTML, not Jupyter's JSON, since the proxy in front of the
// Jupyter server answers before the request reaches it.
const nginx413 = "<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n" +
	"<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"

// bodyTooLarge answers nginx's 413 and reports true when Config.ProxyMaxBody
// is set and r's body is larger (by its Content-Length, or by what arrives
// when it has none); the request is then not served.
func (s *Server) bodyTooLarge(w http.ResponseWriter, r *http.Request) bool {
	limit := s.opts.ProxyMaxBody
	if limit <= 0 || r.Body == nil {
		return false
	}
	if r.ContentLength < 0 {
		// Unknown length: read up to the limit, then refuse or go on.
		b, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
		if err == nil && int64(len(b)) <= limit {
			r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(b), r.Body))
			return false
		}
	} else if r.ContentLength <= limit {
		return false
	}
	w.Header().Set("Content-Type", "text/html")
	w.Header().Set("Server", "nginx")
	w.Header().Set("Connection", "close")
	w.WriteHeader(http.StatusRequestEntityTooLarge)
	_, _ = io.WriteString(w, nginx413)
	return true
}

// xssiWriter puts Colab's anti-XSSI prefix before the body of a JSON
// reply (Config.XSSI).
type xssiWriter struct {
	http.ResponseWriter
	started bool
}

// xssiGuard is the prefix, with the newline Colab sends after it.
const xssiGuard = ")]}'\n"

func (x *xssiWriter) WriteHeader(code int) {
	if !x.started {
		x.started = true
		if strings.HasPrefix(x.Header().Get("Content-Type"), "application/json") {
			if cl := x.Header().Get("Content-Length"); cl != "" {
				if n, err := strconv.Atoi(cl); err == nil {
					x.Header().Set("Content-Length", strconv.Itoa(n+len(xssiGuard)))
				}
			}
			x.ResponseWriter.WriteHeader(code)
			_, _ = io.WriteString(x.ResponseWriter, xssiGuard)
			return
		}
	}
	x.ResponseWriter.WriteHeader(code)
}

func (x *xssiWriter) Write(p []byte) (int, error) {
	if !x.started {
		x.WriteHeader(http.StatusOK)
	}
	return x.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection.
func (x *xssiWriter) Unwrap() http.ResponseWriter { return x.ResponseWriter }
