package proxy

// A contents reply decoded as a stream: a listing of 100,000
// entries is 30 MB of flat JSON objects. jsontext (the streaming layer
// of Go's JSON v2) reads the reply once from its own buffer, validates
// it and hands over each entry of "content" whole; the few fields a Model
// has are then picked from that entry's checked bytes (members), and the
// rest skipped without copying. Values decode as encoding/json decodes
// them into modelWire: escapes, surrogate pairs, invalid UTF-8 (U+FFFD),
// a field given twice (the last wins), a null leaving a string or bool
// field as it was.

import (
	"bytes"
	"errors"
	"io"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jsonnum"
)

// errSyntax: the reply is not JSON, or not the JSON of a contents model
// (a field of the wrong type, nesting deeper than jsontext's 10,000).
var errSyntax = errors.New("invalid JSON")

// modelDecoder reads contents models from a JSON stream.
type modelDecoder struct {
	d   *jsontext.Decoder
	key []byte // the top-level model's current member name, unquoted
	str []byte // the last string unquoted (valid until the next one)

	// The last time value read (raw) and its parse, and the last type
	// and mimetype: a directory's entries mostly share them.
	lastTime               []byte
	lastParsed             time.Time
	lastType, lastMimetype string
}

func newModelDecoder(r io.Reader) *modelDecoder {
	return &modelDecoder{d: jsontext.NewDecoder(r,
		jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))}
}

// syntaxErr gives jsontext's errors their meaning here: a reply cut short
// is io.ErrUnexpectedEOF, bad JSON errSyntax; the reader's own error (the
// budget's, the connection's) is returned as jsontext wraps it.
func syntaxErr(err error) error {
	if err == nil {
		return nil
	}
	var se *jsontext.SyntacticError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return err
	case errors.Is(err, io.EOF):
		return io.ErrUnexpectedEOF
	case errors.As(err, &se):
		return errSyntax
	}
	return err
}

// read returns the next raw value (checked by jsontext).
func (md *modelDecoder) read() (jsontext.Value, error) {
	v, err := md.d.ReadValue()
	return v, syntaxErr(err)
}

// token reads a delimiter or null.
func (md *modelDecoder) token() error {
	_, err := md.d.ReadToken()
	return syntaxErr(err)
}

// model reads the reply's own model, member by member; content, when not
// nil, reads the "content" value, which is skipped otherwise.
func (md *modelDecoder) model(m *Model, content func() error) error {
	*m = Model{Size: -1}
	if md.d.PeekKind() != '{' {
		if _, err := md.read(); err != nil {
			return err
		}
		return errSyntax
	}
	if err := md.token(); err != nil {
		return err
	}
	for md.d.PeekKind() != '}' {
		k, err := md.read()
		if err != nil {
			return err
		}
		md.key, _ = jsontext.AppendUnquote(md.key[:0], k)
		if string(md.key) == "content" && content != nil {
			err = content()
		} else {
			var v jsontext.Value
			if v, err = md.read(); err == nil {
				err = md.field(m, md.key, v)
			}
		}
		if err != nil {
			return err
		}
	}
	return md.token()
}

// entry reads one entry of a listing: an object, or null (an empty
// model, as encoding/json has it).
func (md *modelDecoder) entry(m *Model) error {
	v, err := md.read()
	if err != nil {
		return err
	}
	*m = Model{Size: -1}
	switch v.Kind() {
	case 'n':
		return nil
	case '{':
	default:
		return errSyntax
	}
	return members(v, func(name, value []byte) error {
		key := name[1 : len(name)-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			md.key, _ = jsontext.AppendUnquote(md.key[:0], name)
			key = md.key
		}
		return md.field(m, key, value)
	})
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

// unquote decodes the JSON string v into md.str.
func (md *modelDecoder) unquote(v []byte) {
	// jsontext has checked v; the only error left is invalid UTF-8,
	// already replaced with U+FFFD.
	md.str, _ = jsontext.AppendUnquote(md.str[:0], v)
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

// members calls f with each member of obj, a JSON object jsontext has
// checked: its name still quoted, its value raw.
func members(obj []byte, f func(name, value []byte) error) error {
	for i := 1; ; {
		i = skipSpace(obj, i)
		switch obj[i] {
		case '}':
			return nil
		case ',':
			i = skipSpace(obj, i+1)
		}
		end := stringEnd(obj, i)
		name := obj[i:end]
		i = skipSpace(obj, skipSpace(obj, end)+1) // past the colon
		end = valueEnd(obj, i)
		if err := f(name, obj[i:end]); err != nil {
			return err
		}
		i = end
	}
}

// skipSpace returns the index of the first byte at or after i in b that
// is not JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// stringEnd returns the index just past the checked JSON string that
// starts at b[i].
func stringEnd(b []byte, i int) int {
	for j := i + 1; ; {
		q := j + bytes.IndexByte(b[j:], '"')
		// The quote ends the string unless an odd number of
		// backslashes comes before it.
		escaped := false
		for p := q - 1; b[p] == '\\'; p-- { // b[i] is the opening quote
			escaped = !escaped
		}
		if !escaped {
			return q + 1
		}
		j = q + 1
	}
}

// valueEnd returns the index just past the checked JSON value that
// starts at b[i].
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; ; j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\r' && b[j] != '\t' {
		j++
	}
	return j
}
