package shell

import (
	"bytes"
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
)

// The reference: charmbracelet/x/ansi's DEC parser (the state table of
// vt100.net's DEC ANSI parser, as vte and alacritty use it), a parser
// written apart from ours. refParse runs it over b and reports what it
// sees, one token a sequence or printed rune, each marked dropped or not
// by the policy documented in docs/security.md.
type refToken struct {
	text    string
	dropped bool
	inner   []byte // a DCS's data that starts with ESC (screen's passthrough): parsed again
}

type refResult struct {
	tokens []refToken
	// ambiguous: the input holds bytes this parser reads otherwise than
	// the terminals the filter follows (which it then reads the way that
	// drops more), so only the no-dropped-kind property is checked.
	ambiguous bool
}

// oracleOSCDropped is the documented OSC policy, on the reference's data.
func oracleOSCDropped(data []byte) bool {
	digits, sig, num := 0, 0, 0
	for _, c := range data {
		if c < '0' || c > '9' {
			break
		}
		digits++
		if sig > 0 || c != '0' {
			sig++
			if sig <= maxOSCSignificant {
				num = num*10 + int(c-'0')
			}
		}
	}
	if digits > 0 {
		return sig > maxOSCSignificant || digits > maxOSCDigits || dropOSC(num)
	}
	return len(data) == 0 || data[0] != 'P' && data[0] != 'R'
}

// dcsFinal is a DCS's final byte: the reference's, or, when it took the
// DCS's first bytes as data, the first final byte in them.
func dcsFinal(cmd ansi.Cmd, data []byte) byte {
	if f := cmd.Final(); f != 0 {
		return f
	}
	for _, c := range data {
		if c >= 0x40 && c <= 0x7e {
			return c
		}
	}
	return 0
}

func refParse(b []byte) refResult {
	var r refResult
	p := ansi.NewParser()
	p.SetDataSize(0)  // unbounded: the reference keeps every string whole
	title := false    // inside ESC k's title, which the reference prints as text
	var final byte    // the byte being fed
	escInter := false // the escape being read has an intermediate byte
	add := func(text string, dropped bool) {
		r.tokens = append(r.tokens, refToken{text: text, dropped: dropped})
	}
	p.SetHandler(ansi.Handler{
		Print: func(c rune) {
			if c == utf8.RuneError {
				r.ambiguous = true // invalid UTF-8: it takes the next bytes blindly
			}
			add(fmt.Sprintf("print %q", c), title)
		},
		Execute: func(c byte) {
			switch {
			case title && (c == 0x07 || c == 0x18 || c == 0x1a || c == 0x9c):
				title = false
				add(fmt.Sprintf("execute %#x", c), true)
			case title && c >= 0x80:
				title = false
				add(fmt.Sprintf("execute %#x", c), false)
			default:
				add(fmt.Sprintf("execute %#x", c), title)
			}
		},
		HandleCsi: func(cmd ansi.Cmd, params ansi.Params) {
			add(fmt.Sprintf("csi %#x %v", int(cmd), params), false)
		},
		HandleEsc: func(cmd ansi.Cmd) {
			// The reference's cmd is clobbered by a C0 control executed
			// inside the escape (ESC SP STX i reads as ESC k): the final
			// byte is the one just fed, the intermediates are counted here.
			title = final == 'k' && !escInter
			add(fmt.Sprintf("esc %#x", int(cmd)), title)
		},
		HandleDcs: func(cmd ansi.Cmd, params ansi.Params, data []byte) {
			t := refToken{text: fmt.Sprintf("dcs %#x %v %q", int(cmd), params, data), dropped: dcsFinal(cmd, data) == 't'}
			if len(data) > 0 && data[0] == 0x1b {
				t.dropped, t.inner = true, bytes.Clone(data)
			}
			r.tokens = append(r.tokens, t)
		},
		HandleOsc: func(cmd int, data []byte) {
			add(fmt.Sprintf("osc %q", data), oracleOSCDropped(data))
		},
		HandleSos: func(data []byte) { add(fmt.Sprintf("sos %q", data), false) },
		HandlePm:  func(data []byte) { add(fmt.Sprintf("pm %q", data), false) },
		HandleApc: func(data []byte) { add(fmt.Sprintf("apc %q", data), true) },
	})
	var lo, hi byte // the range of the UTF-8 continuation byte expected
	for i, c := range b {
		s := p.State()
		final = c
		switch {
		case c == 0x1b:
			escInter = false
		case (s == parser.EscapeState || s == parser.EscapeIntermediateState) && c >= 0x20 && c <= 0x2f:
			escInter = true
		}
		if s == parser.Utf8State && (c < lo || c > hi) {
			// The reference takes a character's bytes blindly; the
			// terminals decode UTF-8 strictly and start again at a byte
			// that cannot continue the character (an ESC, a second lead).
			p.Reset()
			r.ambiguous = true
			s = p.State()
		}
		if s != parser.GroundState && s != parser.Utf8State {
			title = false
		}
		if ambiguousByte(s, c) || c == 0xc2 && i+1 < len(b) && b[i+1] >= 0x80 && b[i+1] <= 0x9f {
			r.ambiguous = true
		}
		p.Advance(c)
		lo, hi = 0x80, 0xbf
		switch {
		case s == parser.Utf8State:
		case c == 0xe0:
			lo = 0xa0
		case c == 0xed:
			hi = 0x9f
		case c == 0xf0:
			lo = 0x90
		case c == 0xf4:
			hi = 0x8f
		}
	}
	return r
}

// ambiguousByte reports the bytes the reference reads otherwise than the
// filter: C1 bytes inside OSC and DCS strings (data to it), bytes above
// 0x7F inside SOS, PM and APC (which end them for it) and inside escape,
// CSI and DCS headers (which end them for it; tmux ignores them), a
// parameter byte after a CSI's intermediate (printed by it) or a DCS's
// (a final byte to it), and
// C0 controls and ESC it takes as a DCS's first data byte (a terminal
// executes them, or with ESC cancels the DCS).
func ambiguousByte(s parser.State, c byte) bool {
	switch s {
	case parser.OscStringState, parser.DcsStringState:
		return c >= 0x80 && c <= 0x9f && c != 0x9c
	case parser.SosStringState, parser.PmStringState, parser.ApcStringState,
		parser.EscapeState, parser.EscapeIntermediateState, parser.CsiEntryState,
		parser.CsiParamState, parser.DcsParamState:
		return c >= 0x80
	case parser.CsiIntermediateState:
		// A parameter byte after a CSI's intermediate: the reference
		// prints it; the DEC table, xterm and vte ignore the CSI to its
		// final byte (csi ignore), as the filter does.
		return c >= 0x80 || c >= 0x30 && c <= 0x3f
	case parser.DcsIntermediateState:
		// A parameter byte after an intermediate: the reference takes it
		// as the final byte; the DEC table, tmux and vte ignore the DCS
		// to its end, and the filter reads on to the next final byte.
		return c >= 0x80 || c >= 0x30 && c <= 0x3f
	case parser.DcsEntryState:
		return c >= 0x80 || c >= 0x08 && c <= 0x0d || c == 0x1b
	}
	return false
}

// c1Folded is b with UTF-8 encoded C1 controls (C2 80-C2 9F) written as
// their 8-bit bytes: how xterm, VTE and kitty read them.
func c1Folded(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == 0xc2 && i+1 < len(b) && b[i+1] >= 0x80 && b[i+1] <= 0x9f {
			i++
		}
		out = append(out, b[i])
	}
	return out
}

// noDroppedKind fails if the reference sees a dropped kind in out, read
// as it is, with C1 controls in UTF-8 read as C1, or inside a DCS that
// screen would pass on.
func noDroppedKind(t *testing.T, in, out []byte, depth int) {
	t.Helper()
	for _, view := range [][]byte{out, c1Folded(out)} {
		for _, tok := range refParse(view).tokens {
			if tok.inner != nil && depth < 3 {
				noDroppedKind(t, in, tok.inner, depth+1)
				continue
			}
			if tok.dropped {
				t.Fatalf("output holds %s\nin:  %q\nout: %q", tok.text, in, out)
			}
		}
	}
}

// keptInOrder fails unless every token of in that is not dropped appears
// in out, unchanged and in order. ESC alone and ST (ESC \) are no-ops a
// terminal ignores: the filter drops them with a dropped sequence.
func keptInOrder(t *testing.T, in, out []byte) {
	t.Helper()
	ref := refParse(in)
	if ref.ambiguous {
		return
	}
	got := refParse(out).tokens
	j := 0
	for _, tok := range ref.tokens {
		if tok.dropped || tok.text == "execute 0x1b" || tok.text == `esc 0x5c` {
			continue
		}
		for j < len(got) && got[j].text != tok.text {
			j++
		}
		if j == len(got) {
			t.Fatalf("%s is missing from the output\nin:  %q\nout: %q", tok.text, in, out)
		}
		j++
	}
}

// FuzzTermFilter feeds arbitrary bytes, split at arbitrary points, to the
// filter and checks it against the reference parser: the output is the
// same however the input is split, holds no sequence of a dropped kind,
// and keeps every other sequence and printed rune, unchanged and in order.
// Its seeds are the table's cases: every bypass found so far.
func FuzzTermFilter(f *testing.F) {
	for _, c := range filterCases {
		f.Add([]byte(c.in), uint16(len(c.in)/2), uint16(len(c.in)/3))
	}
	f.Fuzz(func(t *testing.T, in []byte, cut1, cut2 uint16) {
		whole := []byte(filterChunks(in))
		a, b := 0, 0
		if len(in) > 0 {
			a, b = int(cut1)%(len(in)+1), int(cut2)%(len(in)+1)
		}
		a, b = min(a, b), max(a, b)
		if split := []byte(filterChunks(in[:a], in[a:b], in[b:])); !bytes.Equal(split, whole) {
			t.Fatalf("split at %d and %d: %q, whole: %q (in %q)", a, b, split, whole, in)
		}
		noDroppedKind(t, in, whole, 0)
		// What is still pending at the end (the filter cannot know yet)
		// is ended with CAN, as a terminal would end it.
		ended := append(bytes.Clone(in), 0x18)
		keptInOrder(t, ended, []byte(filterChunks(ended)))
	})
}
