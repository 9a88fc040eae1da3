package proxy

import (
	"bytes"
	"io"
)

// xssiPrefix is the anti-XSSI guard Colab's front end may put before a
// JSON reply (colab-vscode strips it from every Colab
// reply). It is stripped, with one newline after it, only where a JSON
// document starts (trimXSSI, skipXSSI): a JSON value can never begin with
// ")", so nothing real is lost. Raw file bytes (GET /files/) are never
// touched.
const xssiPrefix = ")]}'"

// TrimXSSI returns b without a leading xssiPrefix and the "\n" or "\r\n"
// after it; any other b is returned as is.
func TrimXSSI(b []byte) []byte {
	rest, ok := bytes.CutPrefix(b, []byte(xssiPrefix))
	if !ok {
		return b
	}
	if r, ok := bytes.CutPrefix(rest, []byte("\r\n")); ok {
		return r
	}
	rest, _ = bytes.CutPrefix(rest, []byte("\n"))
	return rest
}

// skipXSSI consumes a leading xssiPrefix (and its newline) from s, as
// TrimXSSI does for a whole reply; a reply without one is left as is. An
// error is the reader's (never io.ErrUnexpectedEOF for a short reply:
// the decoder reports it).
func (s *scanner) skipXSSI() error {
	for len(s.buf)-s.pos < len(xssiPrefix)+2 && s.err == nil {
		if err := s.more(); err != nil && err != io.ErrUnexpectedEOF {
			return err
		}
	}
	head := s.buf[s.pos:]
	s.pos += len(head) - len(TrimXSSI(head))
	return nil
}
