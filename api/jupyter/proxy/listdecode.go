package proxy

// A contents reply decoded as a stream: a listing of 100,000
// entries is 30 MB of flat JSON objects. The scanner (listscan.go) reads
// the reply once from its own buffer, checks it and hands over each
// entry of "content" whole with where its members lie; the few fields a
// Model has are then picked from those checked bytes, and the rest
// skipped without copying. Values decode as encoding/json decodes them
// into modelWire: escapes, surrogate pairs, invalid UTF-8 (U+FFFD), a
// field given twice (the last wins), a null leaving a string or bool
// field as it was.

import (
	"bytes"
	"errors"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jsonnum"
)

// errSyntax: the reply is not JSON, or not the JSON of a contents model
// (a field of the wrong type, nesting deeper than maxDepth).
var errSyntax = errors.New("invalid JSON")

// modelDecoder reads contents models from a JSON stream.
type modelDecoder struct {
	s     *scanner
	key   []byte   // the current member name, unquoted
	str   []byte   // the last string unquoted (valid until the next one or the next read)
	buf   []byte   // room for an unquoted string
	spans []member // the members of the last entry read

	// The last time value read (raw) and its parse, and the last type
	// and mimetype: a directory's entries mostly share them.
	lastTime               []byte
	lastParsed             time.Time
	lastType, lastMimetype string
}

// expect consumes the byte c, after white space: errSyntax when the
// next byte is another.
func (md *modelDecoder) expect(c byte) error {
	got, err := md.s.peek()
	if err != nil {
		return err
	}
	if got != c {
		return errSyntax
	}
	md.s.pos++
	return nil
}

// next consumes a ',' (more follows: true) or the closing byte end
// (false), after white space.
func (md *modelDecoder) next(end byte) (bool, error) {
	c, err := md.s.peek()
	if err != nil {
		return false, err
	}
	switch c {
	case ',':
		md.s.pos++
		return true, nil
	case end:
		md.s.pos++
		return false, nil
	}
	return false, errSyntax
}

// model reads the reply's own model, member by member; content, when not
// nil, reads the "content" value, which is skipped otherwise.
func (md *modelDecoder) model(m *Model, content func() error) error {
	*m = Model{Size: -1}
	c, err := md.s.peek()
	if err != nil {
		return err
	}
	if c != '{' {
		if _, err := md.s.value(nil); err != nil {
			return err
		}
		return errSyntax
	}
	md.s.pos++
	if c, err = md.s.peek(); err != nil {
		return err
	}
	if c == '}' {
		md.s.pos++
		return nil
	}
	for more := true; more; {
		k, err := md.s.value(nil)
		if err != nil {
			return err
		}
		if k[0] != '"' {
			return errSyntax
		}
		md.key, _ = jsontext.AppendUnquote(md.key[:0], k)
		if err := md.expect(':'); err != nil {
			return err
		}
		if string(md.key) == "content" && content != nil {
			err = content()
		} else {
			var v []byte
			if v, err = md.s.value(nil); err == nil {
				err = md.field(m, md.key, v)
			}
		}
		if err != nil {
			return err
		}
		if more, err = md.next('}'); err != nil {
			return err
		}
	}
	return nil
}

// entry reads one entry of a listing: an object, or null (an empty
// model, as encoding/json has it).
func (md *modelDecoder) entry(m *Model) error {
	v, err := md.s.value(&md.spans)
	if err != nil {
		return err
	}
	*m = Model{Size: -1}
	switch v[0] {
	case 'n':
		return nil
	case '{':
	default:
		return errSyntax
	}
	b := md.s.buf
	var name []byte // the last string "name" (a null leaves it)
	for _, sp := range md.spans {
		quoted := b[sp.name:sp.nameEnd]
		key, v := quoted[1:len(quoted)-1], b[sp.value:sp.valueEnd]
		if bytes.IndexByte(key, '\\') >= 0 {
			md.key, _ = jsontext.AppendUnquote(md.key[:0], quoted)
			key = md.key
		}
		if string(key) == "name" && v[0] == '"' {
			name = v // read once the path is known
			continue
		}
		if err := md.field(m, key, v); err != nil {
			return err
		}
	}
	if name != nil {
		// The name is most often the path's last segment: it shares
		// the path's memory instead of a string of its own.
		md.unquote(name)
		p, n := m.Path, len(md.str)
		if (len(p) == n || len(p) > n && p[len(p)-n-1] == '/') && p[len(p)-n:] == string(md.str) {
			m.Name = p[len(p)-n:]
		} else {
			m.Name = string(md.str)
		}
	}
	return nil
}

// field sets the member of m named key (unquoted) from its raw value v;
// other names are ignored.
func (md *modelDecoder) field(m *Model, key, v []byte) error {
	switch string(key) {
	case "name":
		return md.stringField(&m.Name, v)
	case "path":
		return md.stringField(&m.Path, v)
	case "type":
		return md.internedField(&m.Type, &md.lastType, v, false)
	case "mimetype":
		return md.internedField(&m.Mimetype, &md.lastMimetype, v, true)
	case "last_modified":
		return md.timeField(&m.LastModified, v)
	case "created":
		return md.timeField(&m.Created, v)
	case "size":
		switch v[0] {
		case 'n':
			m.Size = -1
		default:
			// Any JSON number, rounded: a server may write 1024.0.
			n, ok := jsonnum.Parse(v)
			if !ok {
				return errSyntax
			}
			m.Size = n
		}
	case "writable":
		switch v[0] {
		case 't', 'f':
			m.Writable = v[0] == 't'
		case 'n':
		default:
			return errSyntax
		}
	}
	return nil
}

// unquote decodes the JSON string v into md.str; a string without an
// escape in valid UTF-8 (most) is its bytes between the quotes, not
// copied.
func (md *modelDecoder) unquote(v []byte) {
	if in := v[1 : len(v)-1]; bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		md.str = in
		return
	}
	// The scanner has checked v; the only error left is invalid UTF-8,
	// already replaced with U+FFFD.
	md.str, _ = jsontext.AppendUnquote(md.buf[:0], v)
	md.buf = md.str
}

// stringField sets *dst from a string or null (null leaves it).
func (md *modelDecoder) stringField(dst *string, v []byte) error {
	switch v[0] {
	case 'n':
	case '"':
		md.unquote(v)
		*dst = string(md.str)
	default:
		return errSyntax
	}
	return nil
}

// internedField is stringField for values that repeat entry after entry
// (type, mimetype): the value is kept in *last, and the next entry with
// the same value shares its string instead of a new one. A null sets ""
// when null is set.
func (md *modelDecoder) internedField(dst, last *string, v []byte, null bool) error {
	switch v[0] {
	case 'n':
		if null {
			*dst = ""
		}
		return nil
	case '"':
	default:
		return errSyntax
	}
	md.unquote(v)
	if string(md.str) != *last {
		*last = string(md.str)
	}
	*dst = *last
	return nil
}

// timeField sets *dst from a time string as api.ParseExpireTime reads it
// (zero when it cannot); null leaves it.
func (md *modelDecoder) timeField(dst *time.Time, v []byte) error {
	switch v[0] {
	case 'n':
		return nil
	case '"':
	default:
		return errSyntax
	}
	if bytes.Equal(v, md.lastTime) { // v holds its quotes: never empty
		*dst = md.lastParsed
		return nil
	}
	md.unquote(v)
	*dst, _ = api.ParseExpireTime(string(md.str))
	md.lastTime, md.lastParsed = append(md.lastTime[:0], v...), *dst
	return nil
}

// skipSpace returns the index of the first byte at or after i in b that
// is not JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}
