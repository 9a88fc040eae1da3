package runtimeproxy

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
)

// maxInlineContent bounds a file served inline by the contents API (GET
// content=1) and a text-format PUT: 64 MiB.
const maxInlineContent = 64 << 20

// maxPutBody bounds one contents PUT body, in bytes: Colab's "keep each
// request under 50 MB", 50 MB being 50,000,000 bytes.
// A larger body is refused with 413 (see putTooLarge).
const maxPutBody = 50_000_000

// putTooLarge answers a contents PUT whose body passed maxPutBody. The
// docs give the limit but not the refusal; a front end's answer to an
// oversized body is HTTP 413 Request Entity Too Large, from the proxy
// (plain text, not Jupyter's JSON error), so that is what the emulator
// sends [INFERRED].
func putTooLarge(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	http.Error(w, "413 Request Entity Too Large: a request to the runtime must carry under 50 MB (send larger files in chunks)", http.StatusRequestEntityTooLarge)
}

// overLimit records that the body it reads passed its http.MaxBytesReader
// limit (readPutModel's errors do not keep their cause).
type overLimit struct {
	r    io.Reader
	over bool
}

func (o *overLimit) Read(p []byte) (int, error) {
	n, err := o.r.Read(p)
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		o.over = true
	}
	return n, err
}

// putModel saves a file or directory, with LargeFileManager's chunk
// semantics: no chunk or chunk 1 writes (truncates), any other value
// (including -1) appends, with no sequence check.
func (s *Server) putModel(w http.ResponseWriter, r *http.Request, root *os.Root, id, sp, p string) {
	if p == "" {
		jsonError(w, http.StatusBadRequest, "Cannot save to the root directory")
		return
	}
	if isHidden(p) {
		jsonError(w, http.StatusBadRequest, "Cannot create file or directory %q", p)
		return
	}
	spoolName, err := spoolPath(root)
	if err != nil {
		jsonError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	defer root.Remove(spoolName)
	if r.ContentLength > maxPutBody {
		putTooLarge(w)
		return
	}
	body := &overLimit{r: http.MaxBytesReader(w, r.Body, maxPutBody)}
	pm, err := readPutModel(body, r.ContentLength, root, spoolName)
	if body.over {
		putTooLarge(w)
		return
	}
	if err != nil {
		jsonError(w, http.StatusBadRequest, "%v", err)
		return
	}
	_, existed := root.Stat(sp)
	created := existed != nil
	parent := path.Dir(sp)
	if pst, err := root.Stat(parent); err != nil || !pst.IsDir() {
		jsonError(w, http.StatusInternalServerError, "Unexpected error while saving file: %s [Errno 2] No such file or directory", p)
		return
	}
	switch pm.typ {
	case "directory":
		if st, err := root.Stat(sp); err == nil {
			if !st.IsDir() {
				jsonError(w, http.StatusBadRequest, "Not a directory: %s", p)
				return
			}
		} else if err := root.Mkdir(sp, 0o755); err != nil {
			jsonError(w, http.StatusInternalServerError, "Unexpected error while saving file: %s %v", p, err)
			return
		}
	case "file", "notebook":
		if pm.chunk != nil && pm.typ != "file" {
			jsonError(w, http.StatusBadRequest, "File type %q is not supported for large file transfer", pm.typ)
			return
		}
		if !pm.hasContent {
			jsonError(w, http.StatusBadRequest, "No file content provided")
			return
		}
		if st, err := root.Stat(sp); err == nil && st.IsDir() {
			jsonError(w, http.StatusInternalServerError, "Unexpected error while saving file: %s [Errno 21] Is a directory", p)
			return
		}
		if pm.chunk == nil || *pm.chunk == 1 {
			if err := root.Rename(spoolName, sp); err != nil {
				jsonError(w, http.StatusInternalServerError, "Unexpected error while saving file: %s %v", p, err)
				return
			}
		} else if err := appendFile(root, spoolName, sp); err != nil {
			jsonError(w, http.StatusInternalServerError, "Unexpected error while saving file: %s %v", p, err)
			return
		}
	default:
		jsonError(w, http.StatusBadRequest, "No file type provided")
		return
	}
	st, err := root.Stat(sp)
	if err != nil {
		jsonError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeModel(w, status, modelOf(p, st))
}

func spoolPath(root *os.Root) (string, error) {
	if err := root.MkdirAll(".spool", 0o700); err != nil {
		return "", err
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return ".spool/" + hex.EncodeToString(b), nil
}

func appendFile(root *os.Root, from, to string) error {
	src, err := root.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := root.OpenFile(to, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

// putFields are the fields of a contents PUT body the emulator acts on;
// the content itself goes to the spool file.
type putFields struct {
	typ, format string
	chunk       *int // nil when absent or null
	hasContent  bool
}

// readPutModel parses a contents PUT body without holding "content" in
// memory: the JSON string is decoded (base64 or text) into the spool file
// as it streams. The other fields are small and read as JSON values.
// size is the body's Content-Length (-1 unknown): a small body gets
// small buffers (many small files are uploaded at once).
func readPutModel(body io.Reader, size int64, root *os.Root, spool string) (putFields, error) {
	bufSize := int64(256 << 10)
	if size >= 0 {
		bufSize = min(bufSize, max(size+16, 4096))
	}
	pr := &putReader{br: bufio.NewReaderSize(body, int(bufSize)), bufSize: bufSize, root: root, spool: spool}
	if err := expect(pr.br, '{'); err != nil {
		return pr.pf, err
	}
	for first := true; ; first = false {
		key, ok, err := pr.nextKey(first)
		if err != nil {
			return pr.pf, err
		}
		if !ok {
			break
		}
		if err := pr.member(key); err != nil {
			return pr.pf, err
		}
	}
	if pr.pf.hasContent && pr.rawContent {
		if err := decodeSpool(pr.root, pr.spool, pr.pf.format); err != nil {
			return pr.pf, err
		}
	}
	return pr.pf, nil
}

// putReader is readPutModel's state while it reads the body's members.
type putReader struct {
	br      *bufio.Reader
	bufSize int64 // br's size, which also scales the spool's write buffer
	root    *os.Root
	spool   string
	pf      putFields
	// rawContent: the content was spooled still JSON-escaped (text, or
	// not a string), for decodeSpool to decode once the format is known.
	rawContent bool
}

// nextKey reads up to and including the colon after the next member's
// key, first telling whether a comma must come before it; ok is false at
// the object's closing brace.
func (pr *putReader) nextKey(first bool) (key string, ok bool, err error) {
	c, err := skipSpace(pr.br)
	if err != nil {
		return "", false, err
	}
	if c == '}' {
		return "", false, nil
	}
	if !first {
		if c != ',' {
			return "", false, errors.New("malformed JSON body")
		}
		if c, err = skipSpace(pr.br); err != nil {
			return "", false, err
		}
	}
	if c != '"' {
		return "", false, errors.New("malformed JSON body")
	}
	_ = pr.br.UnreadByte()
	kraw, err := readValue(pr.br, 1<<10)
	if err != nil {
		return "", false, err
	}
	if err := json.Unmarshal(kraw, &key); err != nil {
		return "", false, errors.New("malformed JSON key")
	}
	if err := expect(pr.br, ':'); err != nil {
		return "", false, err
	}
	return key, true, nil
}

// member reads the value of the member named key: a string content
// streams to the spool file, any other value is read whole (at most
// 1 MiB) and kept when it is a field the emulator acts on.
func (pr *putReader) member(key string) error {
	c, err := skipSpace(pr.br)
	if err != nil {
		return err
	}
	_ = pr.br.UnreadByte()
	if key == "content" && c == '"' {
		_, _ = pr.br.ReadByte()
		f, err := pr.root.Create(pr.spool)
		if err != nil {
			return err
		}
		if err := pr.streamContent(f); err != nil {
			return fmt.Errorf("bad content: %v", err)
		}
		pr.pf.hasContent = true
		return nil
	}
	raw, err := readValue(pr.br, 1<<20)
	if err != nil {
		return err
	}
	return pr.setField(key, raw)
}

// streamContent copies the content string (its opening quote read) to
// the spool file f, which it closes: base64-decoded when the format, sent
// before it, is base64 (which must then hold no escapes), else still
// escaped for decodeSpool.
func (pr *putReader) streamContent(f *os.File) error {
	var err error
	sr := &jsonStringReader{br: pr.br}
	// The decoder yields at most 768 bytes a Read: buffer the
	// writes, or every one is a system call.
	bw := bufio.NewWriterSize(f, int(min(1<<20, 4*pr.bufSize)))
	if pr.pf.format == "base64" {
		_, err = io.Copy(bw, base64.NewDecoder(base64.StdEncoding, sr))
	} else {
		_, err = io.Copy(bw, sr)
		pr.rawContent = true
	}
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && pr.pf.format == "base64" && sr.escaped {
		err = errors.New("escaped characters in base64 content")
	}
	return err
}

// setField keeps the raw JSON value of the member named key: type,
// format, chunk (an integer or null) and a content that is not a string
// (a notebook's JSON, spooled as is; null means none). Other members are
// ignored, as are a type or format that is not a string.
func (pr *putReader) setField(key string, raw []byte) error {
	switch key {
	case "type":
		_ = json.Unmarshal(raw, &pr.pf.typ)
	case "format":
		_ = json.Unmarshal(raw, &pr.pf.format)
	case "chunk":
		if string(raw) == "null" {
			return nil
		}
		var n int
		if err := json.Unmarshal(raw, &n); err != nil {
			return errors.New("chunk is not an integer")
		}
		pr.pf.chunk = &n
	case "content":
		if string(raw) == "null" {
			return nil
		}
		pr.pf.hasContent = true
		if err := pr.root.WriteFile(pr.spool, raw, 0o600); err != nil {
			return err
		}
		pr.rawContent = true
	}
	return nil
}

// decodeSpool turns spooled JSON-escaped content into the file's bytes:
// text is unescaped, base64 decoded, anything else (a notebook's JSON)
// kept as is.
func decodeSpool(root *os.Root, spool, format string) error {
	raw, err := root.ReadFile(spool)
	if err != nil {
		return err
	}
	if len(raw) > maxInlineContent {
		return errors.New("content too large")
	}
	var out []byte
	switch format {
	case "text", "base64":
		var s string
		if err := json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &s); err != nil {
			if err := json.Unmarshal(raw, &s); err != nil {
				return errors.New("content is not a string")
			}
		}
		out = []byte(s)
		if format == "base64" {
			if out, err = base64.StdEncoding.DecodeString(s); err != nil {
				return fmt.Errorf("Encoding error: %v", err)
			}
		}
	case "":
		return errors.New("Must specify format of file contents as 'text' or 'base64'")
	default:
		out = raw
	}
	return root.WriteFile(spool, out, 0o600)
}
