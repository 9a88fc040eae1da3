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

func skipSpace(br *bufio.Reader) (byte, error) {
	for {
		c, err := br.ReadByte()
		if err != nil {
			return 0, errors.New("truncated JSON body")
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c, nil
		}
	}
}

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
// array) of at most max bytes and returns its raw text.
func readValue(br *bufio.Reader, max int) ([]byte, error) {
	var out []byte
	depth, inStr, esc := 0, false, false
	for {
		c, err := br.ReadByte()
		if err != nil {
			return nil, errors.New("truncated JSON body")
		}
		if len(out) >= max {
			return nil, errors.New("JSON value too large")
		}
		if len(out) == 0 && (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			continue
		}
		if !inStr && depth == 0 && len(out) > 0 && (c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t') {
			_ = br.UnreadByte()
			return out, nil
		}
		out = append(out, c)
		switch {
		case inStr && esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case inStr && c == '"':
			inStr = false
			if depth == 0 {
				return out, nil
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
			if depth == 0 {
				return out, nil
			}
		}
	}
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
