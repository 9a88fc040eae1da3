package api

import (
	"io"
	"log/slog"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// NewLogHandler is the handler of the log file (--log-file): JSON lines
// (slog.JSONHandler) written to w, every secret redacted by r
// (RedactingHandler), and no character in them that can act on a
// terminal the file is shown in: the JSON encoder escapes C0 controls
// (\u001b), and EscapeControls escapes what it leaves raw — DEL, C1
// controls (U+0080–U+009F, such as the one-byte CSI U+009B) and the
// bidirectional controls (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F,
// U+061C), as \u escapes that decode to the same text. r may be nil
// (patterns only).
func NewLogHandler(w io.Writer, opts *slog.HandlerOptions, r *Redactor) slog.Handler {
	return NewRedactingHandler(slog.NewJSONHandler(EscapeControls(w), opts), r)
}

// EscapeControls wraps w, the destination of JSON text, so that DEL, every
// C1 control and every bidirectional control character in what is
// written reaches w as a JSON \uXXXX escape instead of raw. JSON text can
// only hold such characters inside strings, where the escape means the
// same character, so the output is the same JSON. Each Write is handled
// on its own (slog handlers write one whole record per Write), and Write
// reports len(p) when the escaped bytes were all written.
func EscapeControls(w io.Writer) io.Writer { return controlEscaper{w} }

type controlEscaper struct{ w io.Writer }

func (e controlEscaper) Write(p []byte) (int, error) {
	first := -1
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRune(p[i:])
		if mustEscape(r, size) {
			first = i
			break
		}
		i += size
	}
	if first < 0 {
		return e.w.Write(p)
	}
	out := make([]byte, 0, len(p)+16)
	out = append(out, p[:first]...)
	for i := first; i < len(p); {
		r, size := utf8.DecodeRune(p[i:])
		if mustEscape(r, size) {
			out = append(out, `\u`...)
			hex := strconv.FormatInt(int64(r), 16)
			for n := len(hex); n < 4; n++ {
				out = append(out, '0')
			}
			out = append(out, hex...)
		} else {
			out = append(out, p[i:i+size]...)
		}
		i += size
	}
	if _, err := e.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// mustEscape reports whether the rune r (size bytes of valid UTF-8, or
// RuneError of size 1 for a bad byte, which is left alone) is DEL, a C1
// control or a bidirectional control.
func mustEscape(r rune, size int) bool {
	if r == utf8.RuneError && size <= 1 {
		return false
	}
	return r == 0x7f || r >= 0x80 && r <= 0x9f || unicode.Is(unicode.Bidi_Control, r)
}
