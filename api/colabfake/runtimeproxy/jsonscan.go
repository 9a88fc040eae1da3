package runtimeproxy

// Small JSON reading helpers for a contents PUT body read as it streams
// (readPutModel).

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// errTruncated is the error of a body that ends inside its JSON.
var errTruncated = errors.New("truncated JSON body")

// isSpace reports whether c is JSON white space.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// skipSpace reads past white space and returns the first other byte.
func skipSpace(br *bufio.Reader) (byte, error) {
	for {
		c, err := br.ReadByte()
		if err != nil {
			return 0, errTruncated
		}
		if !isSpace(c) {
			return c, nil
		}
	}
}

// expect reads past white space and then the byte want, or fails.
func expect(br *bufio.Reader, want byte) error {
	c, err := skipSpace(br)
	if err != nil {
		return err
	}
	if c != want {
		return fmt.Errorf("malformed JSON body: want %q, got %q", want, c)
	}
	return nil
}

// readValue reads one JSON value (string, number, literal, object or
// array) of at most max bytes and returns its raw text. It finds where
// the value ends, not whether it is valid: the caller decodes it. A
// number or literal ends before the delimiter or white space after it,
// which is left unread.
func readValue(br *bufio.Reader, max int) ([]byte, error) {
	var (
		out []byte
		end valueEnd
	)
	for {
		c, err := br.ReadByte()
		if err != nil {
			return nil, errTruncated
		}
		if len(out) >= max {
			return nil, errors.New("JSON value too large")
		}
		if len(out) == 0 && isSpace(c) {
			continue
		}
		if len(out) > 0 && end.endsBare(c) {
			_ = br.UnreadByte()
			return out, nil
		}
		out = append(out, c)
		if end.step(c) {
			return out, nil
		}
	}
}

// valueEnd follows a JSON value byte by byte far enough to tell where it
// ends: the nesting of objects and arrays, and whether a string (and an
// escape in it) is open.
type valueEnd struct {
	depth int
	inStr bool
	esc   bool
}

// endsBare reports whether c, met after the start of a value, ends a
// number or literal: a delimiter or white space outside any string,
// object or array.
func (v *valueEnd) endsBare(c byte) bool {
	return !v.inStr && v.depth == 0 && (c == ',' || c == '}' || c == ']' || isSpace(c))
}

// step takes the value's next byte c and reports whether it completes
// the value: the closing quote of a top-level string, or the bracket
// that closes the outermost object or array.
func (v *valueEnd) step(c byte) bool {
	switch {
	case v.inStr:
		return v.inString(c)
	case c == '"':
		v.inStr = true
	case c == '{' || c == '[':
		v.depth++
	case c == '}' || c == ']':
		v.depth--
		return v.depth == 0
	}
	return false
}

// inString takes byte c inside a string: a backslash escapes the byte
// after it, a quote not escaped closes the string (and the value, at the
// top level); anything else, brackets included, is the string's.
func (v *valueEnd) inString(c byte) bool {
	switch {
	case v.esc:
		v.esc = false
	case c == '\\':
		v.esc = true
	case c == '"':
		v.inStr = false
		return v.depth == 0
	}
	return false
}

// jsonStringReader yields the bytes of a JSON string (still escaped) up
// to its closing quote, which it consumes.
type jsonStringReader struct {
	br      *bufio.Reader
	esc     bool
	escaped bool
	done    bool
}

func (s *jsonStringReader) Read(p []byte) (int, error) {
	if s.done {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	if s.br.Buffered() == 0 {
		if _, err := s.br.Peek(1); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
	}
	buf, _ := s.br.Peek(min(len(p), s.br.Buffered()))
	n := 0
	for n < len(buf) {
		if s.esc {
			s.esc = false
			n++
			continue
		}
		j := bytes.IndexAny(buf[n:], "\"\\")
		if j < 0 {
			n = len(buf)
			break
		}
		n += j
		if buf[n] == '"' {
			copy(p, buf[:n])
			_, _ = s.br.Discard(n + 1)
			s.done = true
			return n, nil
		}
		s.escaped, s.esc = true, true
		n++
	}
	copy(p, buf[:n])
	_, _ = s.br.Discard(n)
	return n, nil
}
