package tty

import (
	"encoding/json"
	"unicode/utf8"
)

// Protocol names, as Terminal.Protocol returns them.
const (
	// ProtocolColab is Colab's terminal: the /colab/tty WebSocket below
	// connectionInfo.url with JSON object frames.
	ProtocolColab = "colab/tty"
	// ProtocolTerminado is a stock Jupyter server's terminal: POST
	// /api/terminals, then /terminals/websocket/NAME with JSON array
	// frames (see terminadoFramer).
	ProtocolTerminado = "terminado"
)

// framer encodes what the client sends and decodes what the server sends
// in one protocol.
type framer interface {
	input(s string) []byte
	size(cols, rows int) []byte
	// output decodes a server frame: the output text, whether the remote
	// shell said it exited, and whether the frame was understood at all.
	output(b []byte) (data string, exited, ok bool)
}

// colabFramer speaks Colab's frames: {"data": …} both ways and
// {"cols": N, "rows": M} from the client. Other JSON shapes are ignored.
type colabFramer struct{}

func (colabFramer) input(s string) []byte {
	b, _ := json.Marshal(struct {
		Data string `json:"data"`
	}{s})
	return b
}

func (colabFramer) size(cols, rows int) []byte {
	b, _ := json.Marshal(struct {
		Cols int `json:"cols"`
		Rows int `json:"rows"`
	}{cols, rows})
	return b
}

func (colabFramer) output(b []byte) (string, bool, bool) {
	var f struct {
		Data *string `json:"data"`
	}
	if json.Unmarshal(b, &f) != nil {
		return "", false, false
	}
	if f.Data == nil {
		return "", false, true
	}
	return *f.Data, false, true
}

// terminadoFramer speaks terminado's arrays: ["stdin", s] and
// ["set_size", rows, cols, height_px, width_px] (rows first) from the
// client; ["setup", {}], ["stdout", s] and ["disconnect", code] from the
// server.
type terminadoFramer struct{}

func (terminadoFramer) input(s string) []byte {
	b, _ := json.Marshal([]any{"stdin", s})
	return b
}

func (terminadoFramer) size(cols, rows int) []byte {
	b, _ := json.Marshal([]any{"set_size", rows, cols, 0, 0})
	return b
}

func (terminadoFramer) output(b []byte) (string, bool, bool) {
	var f []json.RawMessage
	if json.Unmarshal(b, &f) != nil || len(f) == 0 {
		return "", false, false
	}
	var kind string
	if json.Unmarshal(f[0], &kind) != nil {
		return "", false, false
	}
	switch kind {
	case "stdout":
		var s string
		if len(f) < 2 || json.Unmarshal(f[1], &s) != nil {
			return "", false, false
		}
		return s, false, true
	case "disconnect":
		return "", true, true
	}
	return "", false, true
}

// utf8Input turns keystroke bytes into valid UTF-8 for a JSON string: a
// sequence split between two reads is held until its end arrives, and
// bytes that are not UTF-8 become U+FFFD.
type utf8Input struct {
	held    []byte
	invalid bool // some byte was replaced
}

// feed returns the text of p that is complete, and whether p carried
// bytes that were replaced.
func (u *utf8Input) feed(p []byte) (string, bool) {
	b := append(u.held, p...)
	u.held = nil
	out := make([]byte, 0, len(b))
	replaced := false
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			if !utf8.FullRune(b[i:]) { // the start of a character: fewer than UTFMax bytes
				u.held = append([]byte(nil), b[i:]...)
				break
			}
			out = append(out, "\uFFFD"...)
			replaced = true
			i++
			continue
		}
		out = append(out, b[i:i+n]...)
		i += n
	}
	if replaced {
		u.invalid = true
	}
	return string(out), replaced
}
