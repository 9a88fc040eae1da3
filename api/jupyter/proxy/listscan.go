package proxy

// A contents reply read straight from its bytes (issue 24): a listing of
// 100,000 entries is 30 MB of flat JSON objects, and encoding/json's
// Decoder (a scan of each value, then reflection into a struct) spent
// most of ls's time on it. This scanner reads the reply once, from the
// connection's buffer, decoding the few fields a Model has and skipping
// the rest without copying them. Strings without escapes, control
// characters or invalid UTF-8 are taken as they are; any other string is
// handed to encoding/json, so escapes, surrogate pairs and invalid bytes
// decode exactly as json.Unmarshal decodes them.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/colabdash/colabdash/api"
)

// errSyntax: the reply is not JSON, or not the JSON of a contents model
// (a field of the wrong type, nesting deeper than maxSkipDepth).
var errSyntax = errors.New("invalid JSON")

// maxSkipDepth bounds the nesting of a value the scanner skips, as
// encoding/json bounds it (each entry's bytes are bounded as well).
const maxSkipDepth = 10_000

// scanner reads JSON values from r.
type scanner struct {
	r   *bufio.Reader
	str []byte // the last string read (valid until the next read)

	// The last time string parsed and its value: a directory's entries
	// mostly share a few.
	lastTime   []byte
	lastParsed time.Time
	seen       []string // interned values
}

// next returns the next byte that is not JSON white space.
func (s *scanner) next() (byte, error) {
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return 0, unexpected(err)
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c, nil
	}
}

// unexpected turns io.EOF, which inside a value means the reply was cut,
// into io.ErrUnexpectedEOF.
func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// rawString reads a string's bytes up to its closing quote (the opening
// one already read) into s.str, still escaped; plain is true when they
// hold no escape, control character or invalid UTF-8.
func (s *scanner) rawString() (plain bool, err error) {
	s.str = s.str[:0]
	for {
		chunk, err := s.r.ReadSlice('"')
		s.str = append(s.str, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return false, unexpected(err)
		}
		// The quote ends the string unless an odd number of
		// backslashes comes before it.
		n := 0
		for i := len(s.str) - 2; i >= 0 && s.str[i] == '\\'; i-- {
			n++
		}
		if n%2 == 0 {
			s.str = s.str[:len(s.str)-1]
			break
		}
	}
	for _, c := range s.str {
		if c < 0x20 || c == '\\' || c >= utf8.RuneSelf {
			return !bytes.ContainsAny(s.str, "\\") && utf8.Valid(s.str) && noControl(s.str), nil
		}
	}
	return true, nil
}

func noControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 {
			return false
		}
	}
	return true
}

// string reads a string value (its opening quote already read).
func (s *scanner) string() (string, error) {
	plain, err := s.rawString()
	if err != nil {
		return "", err
	}
	if plain {
		return string(s.str), nil
	}
	q := make([]byte, 0, len(s.str)+2)
	q = append(append(append(q, '"'), s.str...), '"')
	var v string
	if err := json.Unmarshal(q, &v); err != nil {
		return "", errSyntax
	}
	return v, nil
}

// literal reads the rest of true, false or null after its first byte c.
func (s *scanner) literal(c byte) error {
	var rest string
	switch c {
	case 't':
		rest = "rue"
	case 'f':
		rest = "alse"
	case 'n':
		rest = "ull"
	default:
		return errSyntax
	}
	for i := 0; i < len(rest); i++ {
		b, err := s.r.ReadByte()
		if err != nil {
			return unexpected(err)
		}
		if b != rest[i] {
			return errSyntax
		}
	}
	return nil
}

// number reads a number's bytes (its first byte c already read) into
// s.str.
func (s *scanner) number(c byte) error {
	s.str = append(s.str[:0], c)
	for {
		b, err := s.r.ReadByte()
		if err != nil {
			return unexpected(err)
		}
		if (b >= '0' && b <= '9') || b == '-' || b == '+' || b == '.' || b == 'e' || b == 'E' {
			s.str = append(s.str, b)
			continue
		}
		return s.r.UnreadByte()
	}
}

// skip reads past one value whose first byte is c.
func (s *scanner) skip(c byte, depth int) error {
	switch {
	case c == '"':
		_, err := s.rawString()
		return err
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number(c)
	case c == '{' || c == '[':
		if depth >= maxSkipDepth {
			return errSyntax
		}
		return s.compound(c, func(c byte) error { return s.skip(c, depth+1) })
	}
	return s.literal(c)
}

// compound reads the rest of an object or array opened by open, calling
// value for each value with its first byte (an object's keys are read
// and dropped: use object to see them).
func (s *scanner) compound(open byte, value func(c byte) error) error {
	if open == '{' {
		return s.object(func(_ []byte, c byte) error { return value(c) })
	}
	c, err := s.next()
	if err != nil || c == ']' {
		return err
	}
	for {
		if err := value(c); err != nil {
			return err
		}
		if c, err = s.next(); err != nil {
			return err
		}
		switch c {
		case ']':
			return nil
		case ',':
			if c, err = s.next(); err != nil {
				return err
			}
		default:
			return errSyntax
		}
	}
}

// object reads the rest of an object (its '{' already read), calling
// field with each key (valid only during the call) and its value's first
// byte; field must read the value.
func (s *scanner) object(field func(key []byte, c byte) error) error {
	c, err := s.next()
	if err != nil || c == '}' {
		return err
	}
	var key []byte
	for {
		if c != '"' {
			return errSyntax
		}
		plain, err := s.rawString()
		if err != nil {
			return err
		}
		key = append(key[:0], s.str...)
		if !plain {
			k, err := s.unquote(key)
			if err != nil {
				return err
			}
			key = append(key[:0], k...)
		}
		if c, err = s.next(); err != nil {
			return err
		}
		if c != ':' {
			return errSyntax
		}
		if c, err = s.next(); err != nil {
			return err
		}
		if err := field(key, c); err != nil {
			return err
		}
		if c, err = s.next(); err != nil {
			return err
		}
		switch c {
		case '}':
			return nil
		case ',':
			if c, err = s.next(); err != nil {
				return err
			}
		default:
			return errSyntax
		}
	}
}

func (s *scanner) unquote(raw []byte) (string, error) {
	var v string
	if err := json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &v); err != nil {
		return "", errSyntax
	}
	return v, nil
}

// optString reads a string or null ("", false for null) whose first byte
// is c.
func (s *scanner) optString(c byte) (string, bool, error) {
	if c == 'n' {
		return "", false, s.literal(c)
	}
	if c != '"' {
		return "", false, errSyntax
	}
	v, err := s.string()
	return v, true, err
}

// interned is optString for values that repeat (type, mimetype): the
// last few distinct ones are kept and returned without a new string.
func (s *scanner) interned(c byte) (string, error) {
	if c != '"' {
		v, _, err := s.optString(c)
		return v, err
	}
	plain, err := s.rawString()
	if err != nil {
		return "", err
	}
	if !plain {
		return s.unquote(s.str)
	}
	for _, v := range s.seen {
		if string(s.str) == v {
			return v, nil
		}
	}
	v := string(s.str)
	if len(s.seen) < 8 {
		s.seen = append(s.seen, v)
	}
	return v, nil
}

// time reads a time string or null (zero) whose first byte is c, as
// api.ParseExpireTime reads it (zero when it cannot).
func (s *scanner) time(c byte) (time.Time, error) {
	if c == 'n' {
		return time.Time{}, s.literal(c)
	}
	if c != '"' {
		return time.Time{}, errSyntax
	}
	plain, err := s.rawString()
	if err != nil {
		return time.Time{}, err
	}
	if plain && s.lastTime != nil && bytes.Equal(s.str, s.lastTime) {
		return s.lastParsed, nil
	}
	v := string(s.str)
	if !plain {
		if v, err = s.unquote(s.str); err != nil {
			return time.Time{}, err
		}
	}
	t, _ := api.ParseExpireTime(v)
	if plain {
		s.lastTime, s.lastParsed = append(s.lastTime[:0], s.str...), t
	}
	return t, nil
}

// model reads the rest of a contents model (its '{' already read) into
// m; content, when not nil, reads the "content" value (its first byte
// given), which is skipped otherwise.
func (s *scanner) model(m *Model, content func(c byte) error) error {
	*m = Model{Size: -1}
	return s.object(func(key []byte, c byte) error {
		var err error
		switch string(key) {
		case "name":
			m.Name, _, err = s.optString(c)
		case "path":
			m.Path, _, err = s.optString(c)
		case "type", "mimetype":
			// A few values repeat through a listing: kept once.
			var v string
			if v, err = s.interned(c); err == nil {
				if key[0] == 't' {
					m.Type = v
				} else {
					m.Mimetype = v
				}
			}
		case "last_modified":
			m.LastModified, err = s.time(c)
		case "created":
			m.Created, err = s.time(c)
		case "size":
			m.Size = -1
			if c == 'n' {
				return s.literal(c)
			}
			if c != '-' && (c < '0' || c > '9') {
				return errSyntax
			}
			if err = s.number(c); err == nil {
				if m.Size, err = strconv.ParseInt(string(s.str), 10, 64); err != nil {
					err = errSyntax
				}
			}
		case "writable":
			switch c {
			case 't', 'f':
				m.Writable = c == 't'
				err = s.literal(c)
			case 'n':
				m.Writable = false
				err = s.literal(c)
			default:
				err = errSyntax
			}
		case "content":
			if content != nil {
				return content(c)
			}
			err = s.skip(c, 0)
		default:
			err = s.skip(c, 0)
		}
		return err
	})
}
