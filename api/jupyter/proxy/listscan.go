package proxy

// The scanner under the listing decoder: it reads the reply into a
// buffer of its own and checks each value's JSON in one pass, recording
// where the members of an entry lie, so an entry is read once (jsontext
// read it once to check it and the decoder a second time to find its
// members). It is strict JSON (RFC 8259) as jsontext with
// AllowInvalidUTF8 and AllowDuplicateNames checks it: invalid UTF-8 in a
// string is taken (decoded as U+FFFD), a control character, a bad escape
// or number, a trailing comma or nesting deeper than maxDepth is
// errSyntax. A value is checked once it is whole in the buffer; one cut
// by the buffer's end is checked again after the next read.

import (
	"encoding/binary"
	"errors"
	"io"
	"math/bits"
)

// maxDepth is the deepest nesting the scanner accepts, as jsontext.
const maxDepth = 10_000

// scanReadSize is the buffer's first size (it doubles, plus this, when
// what is unconsumed fills more than half of it), and the length of a
// value past which more reads until the buffer is full.
const scanReadSize = 64 << 10

// errMore: the value runs past what is buffered (checkValue and friends).
var errMore = errors.New("more input needed")

// scanner reads JSON from r into buf; buf[pos:] is not consumed yet.
type scanner struct {
	r   io.Reader
	buf []byte
	pos int
	err error // the reader's error once met (io.EOF at the end)
}

// more reads into the buffer (moving what is unconsumed to its start,
// growing it when full) until what it read adds over half of what was
// pending, so a value cut short is not checked again after every small
// read; when the value being read already holds more than scanReadSize
// bytes, it reads until the buffer is full. It returns the
// reader's error once the reader has nothing more: io.ErrUnexpectedEOF
// for its end (the caller needed more), its own error otherwise.
func (s *scanner) more() error {
	if s.err != nil {
		return s.ended()
	}
	pending := len(s.buf) - s.pos
	if s.pos > 0 {
		s.buf = s.buf[:copy(s.buf, s.buf[s.pos:])]
		s.pos = 0
	}
	if len(s.buf) > cap(s.buf)/2 {
		nb := make([]byte, len(s.buf), 2*cap(s.buf)+scanReadSize)
		copy(nb, s.buf)
		s.buf = nb
	}
	for got := 0; ; {
		n, err := s.r.Read(s.buf[len(s.buf):cap(s.buf)])
		s.buf = s.buf[:len(s.buf)+n]
		got += n
		if err != nil {
			s.err = err
			if got > 0 {
				return nil
			}
			return s.ended()
		}
		// The value is checked again from its start after this: only once
		// what was read adds half of what was pending, so a reply fed a
		// byte at a time costs a few checks a value, not one a byte.
		if got > 0 && (got > pending/2 && pending < scanReadSize || len(s.buf) == cap(s.buf)) {
			return nil
		}
	}
}

// ended is the error of a reader that has nothing more.
func (s *scanner) ended() error {
	if s.err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return s.err
}

// peek returns the next byte after white space (consumed), reading more
// as needed.
func (s *scanner) peek() (byte, error) {
	for {
		s.pos = skipSpace(s.buf, s.pos)
		if s.pos < len(s.buf) {
			return s.buf[s.pos], nil
		}
		if err := s.more(); err != nil {
			return 0, err
		}
	}
}

// value returns the next value, checked, and consumes it; spans, when
// not nil, gets its members when it is an object (checkValue).
func (s *scanner) value(spans *[]member) ([]byte, error) {
	for {
		if _, err := s.peek(); err != nil {
			return nil, err
		}
		if spans != nil {
			*spans = (*spans)[:0]
		}
		end, err := checkValue(s.buf, s.pos, 0, spans)
		if err == errMore {
			if err = s.more(); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		v := s.buf[s.pos:end]
		s.pos = end
		return v, nil
	}
}

// member is where one member of a checked object lies: its name with
// its quotes, its value, as indexes into the buffer.
type member struct{ name, nameEnd, value, valueEnd int }

// checkValue checks the JSON value starting at b[i] (after white space)
// and returns the index just past it: errSyntax when it is not JSON,
// errMore when b ends first. spans, when not nil, gets the members of
// the value when it is an object (of this level only).
func checkValue(b []byte, i, depth int, spans *[]member) (int, error) {
	if i >= len(b) {
		return 0, errMore
	}
	switch c := b[i]; {
	case c == '"':
		return checkString(b, i)
	case c == '{':
		return checkObject(b, i, depth+1, spans)
	case c == '[':
		return checkArray(b, i, depth+1)
	case c == 't':
		return checkLiteral(b, i, "true")
	case c == 'f':
		return checkLiteral(b, i, "false")
	case c == 'n':
		return checkLiteral(b, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		return checkNumber(b, i)
	}
	return 0, errSyntax
}

func checkLiteral(b []byte, i int, lit string) (int, error) {
	for k := 0; k < len(lit); k++ {
		if i+k >= len(b) {
			return 0, errMore
		}
		if b[i+k] != lit[k] {
			return 0, errSyntax
		}
	}
	return i + len(lit), nil
}

// checkNumber checks -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?; a
// number at b's end may go on: errMore.
func checkNumber(b []byte, i int) (int, error) {
	digits := func(i int) (int, error) {
		j := i
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		switch {
		case j == len(b):
			return 0, errMore
		case j == i:
			return 0, errSyntax
		}
		return j, nil
	}
	if b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return 0, errMore
	}
	var err error
	switch {
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		if i, err = digits(i); err != nil {
			return 0, err
		}
	default:
		return 0, errSyntax
	}
	if i >= len(b) {
		return 0, errMore
	}
	if b[i] == '.' {
		if i, err = digits(i + 1); err != nil {
			return 0, err
		}
	}
	if b[i] == 'e' || b[i] == 'E' {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) {
			return 0, errMore
		}
		if i, err = digits(i); err != nil {
			return 0, err
		}
	}
	return i, nil
}

// checkString checks the string starting at b[i] (its quote): no control
// character, only JSON's escapes; any other byte is taken.
func checkString(b []byte, i int) (int, error) {
	for j := i + 1; ; {
		// Eight bytes at a time up to a quote, a backslash or a control.
		for j+8 <= len(b) {
			if stop := stringStops(binary.LittleEndian.Uint64(b[j:])); stop != 0 {
				j += bits.TrailingZeros64(stop) / 8
				break
			}
			j += 8
		}
		if j >= len(b) {
			return 0, errMore
		}
		switch c := b[j]; {
		case c == '"':
			return j + 1, nil
		case c < 0x20:
			return 0, errSyntax
		case c != '\\':
			j++
			continue
		}
		if j+1 >= len(b) {
			return 0, errMore
		}
		switch b[j+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			j += 2
		case 'u':
			for k := j + 2; k < j+6; k++ {
				if k >= len(b) {
					return 0, errMore
				}
				if !isHex(b[k]) {
					return 0, errSyntax
				}
			}
			j += 6
		default:
			return 0, errSyntax
		}
	}
}

// stringStops marks, in the eight bytes x (little-endian), the high bit
// of a quote, a backslash and a byte below 0x20: zero bytes of
// x ^ '"'…, of x ^ '\\'… and of x & 0xe0…, found as (v - 0x01…) & ^v &
// 0x80…. The lowest mark is exact (a borrow only carries past a zero
// byte, so a byte above a stop may be marked too).
func stringStops(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) &^ v & highs }
	return zero(x^('"'*ones)) | zero(x^('\\'*ones)) | zero(x&(0xe0*ones))
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// checkObject checks the object starting at b[i]; spans, when not nil,
// gets its members.
func checkObject(b []byte, i, depth int, spans *[]member) (int, error) {
	if depth > maxDepth {
		return 0, errSyntax
	}
	i = skipSpace(b, i+1)
	if i >= len(b) {
		return 0, errMore
	}
	if b[i] == '}' {
		return i + 1, nil
	}
	for {
		if b[i] != '"' {
			return 0, errSyntax
		}
		nameEnd, err := checkString(b, i)
		if err != nil {
			return 0, err
		}
		j := skipSpace(b, nameEnd)
		if j >= len(b) {
			return 0, errMore
		}
		if b[j] != ':' {
			return 0, errSyntax
		}
		v := skipSpace(b, j+1)
		end, err := checkValue(b, v, depth, nil)
		if err != nil {
			return 0, err
		}
		if spans != nil {
			*spans = append(*spans, member{i, nameEnd, v, end})
		}
		next, done, err := nextItem(b, end, '}')
		if err != nil || done {
			return next, err
		}
		i = next
	}
}

// nextItem reads what follows a member or an element ending at end: the
// closing byte close (done, next just past it), or a comma and the next
// one's start (next).
func nextItem(b []byte, end int, close byte) (next int, done bool, err error) {
	i := skipSpace(b, end)
	if i >= len(b) {
		return 0, false, errMore
	}
	switch b[i] {
	case close:
		return i + 1, true, nil
	case ',':
		if i = skipSpace(b, i+1); i >= len(b) {
			return 0, false, errMore
		}
		return i, false, nil
	}
	return 0, false, errSyntax
}

// checkArray checks the array starting at b[i].
func checkArray(b []byte, i, depth int) (int, error) {
	if depth > maxDepth {
		return 0, errSyntax
	}
	i = skipSpace(b, i+1)
	if i >= len(b) {
		return 0, errMore
	}
	if b[i] == ']' {
		return i + 1, nil
	}
	for {
		end, err := checkValue(b, i, depth, nil)
		if err != nil {
			return 0, err
		}
		next, done, err := nextItem(b, end, ']')
		if err != nil || done {
			return next, err
		}
		i = next
	}
}
