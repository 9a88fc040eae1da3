package shell

import "io"

// maxPending bounds the bytes held back while a sequence's kind is not
// known yet (an escape, a CSI, a DCS or OSC header, and the unfinished
// sequences they cut short). Past it, a sequence that is never dropped
// (ESC, CSI) flows on as it comes, and one still undecided (an OSC
// number, a DCS header that long) is dropped.
const maxPending = 4096

// maxOSCDigits bounds the digits (leading zeros included) of an OSC
// number; a longer one is dropped, as is one with more than
// maxOSCSignificant significant digits (a terminal's int could wrap it
// round to 52).
const (
	maxOSCDigits      = 32
	maxOSCSignificant = 6
)

// fstate is where the filter is in the terminal's parse.
type fstate uint8

const (
	fGround  fstate = iota
	fEsc            // after ESC
	fEscInt         // after ESC and intermediates (0x20-0x2F)
	fCSI            // a control sequence
	fDCSHead        // a DCS's parameters and intermediates, before its final byte
	fOSCHead        // an OSC's number
	fString         // the body of an OSC, DCS, SOS, PM, APC or ESC k string
)

// strKind is the kind of string being read.
type strKind uint8

const (
	kOSC   strKind = iota
	kDCS           // ends at ST, not at BEL
	kOther         // SOS, PM, APC: end at ST, not at BEL
	kTitle         // ESC k (screen, tmux): ends like an OSC
)

// termFilter writes a shell's output through, byte for byte and in
// order, except the sequences listed in docs/security.md (clipboard,
// titles, iTerm2 and kitty extensions, tmux passthrough: see dropOSC),
// which it drops whole. It reads bytes as a terminal does (the DEC
// parser of ECMA-48, as xterm, VTE, tmux and kitty implement it):
// ESC, CAN and SUB end or cancel whatever sequence they meet, as do C1
// controls, 8-bit (0x9D) or UTF-8 encoded (C2 9D), and OSC numbers are
// read with leading zeros and C0 controls skipped. Where terminals
// differ it takes the reading that drops more. State carries across
// Write calls, so a sequence split between writes is dropped the same.
//
// Three changes besides the dropping keep the terminal's parse of the
// output equal to the filter's: the unfinished sequences a dropped one
// cuts short (which the terminal ignores) go with it, but the C0
// controls inside them, which the terminal executes, stay; and a string
// that was passed on and is cut short by a dropped sequence is closed
// with ST (ESC \), a CSI passed on in part with CAN. Memory is bounded:
// at most maxPending bytes are held, and a dropped string is skipped,
// not kept, until its terminator, as long as a terminal would read it.
type termFilter struct {
	w     io.Writer
	st    fstate
	kind  strKind
	drop  bool   // the string being read is dropped
	pend  []byte // bytes not written yet (see maxPending)
	exec  []byte // the C0 controls in pend that a terminal executes where they stand
	close string // what closes the sequence the output was left inside ("": none)
	// afterDrop: the pending ESC ended a dropped string, so a `\` after
	// it is that string's ST and goes too.
	afterDrop bool
	c2        bool // the last byte was C2, maybe the start of a UTF-8 C1
	u8        int  // UTF-8 continuation bytes still expected
	u8lo      byte // the range the next continuation byte must fall in
	u8hi      byte
	// The OSC number so far.
	digits, sig, num int
	out              []byte
}

// newTermFilter returns a filter writing to w.
func newTermFilter(w io.Writer) *termFilter { return &termFilter{w: w} }

// End is called when the connection writing through f has ended: it
// closes the sequence the output was left inside (an OSC or DCS passed
// on and never finished) and forgets what is pending, so that what is
// written next (colabdash's own lines, the next connection's output) is
// not read by the terminal as part of it. f starts afresh after it.
func (f *termFilter) End() error {
	c := f.close
	*f = termFilter{w: f.w}
	if c == "" {
		return nil
	}
	_, err := io.WriteString(f.w, c)
	return err
}

// Write filters p; it reports len(p) when the underlying write succeeds
// (dropped bytes count as written).
func (f *termFilter) Write(p []byte) (int, error) {
	f.out = f.out[:0]
	for _, b := range p {
		f.step(b)
	}
	if len(f.out) > 0 {
		if _, err := f.w.Write(f.out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// step reads one byte.
func (f *termFilter) step(b byte) {
	if f.c2 {
		f.c2 = false
		if b >= 0x80 && b <= 0x9f { // U+0080-U+009F: a C1 control in UTF-8
			f.u8 = 0
			f.control(b, true)
			return
		}
		if f.st == fGround || f.st == fString && !f.drop {
			f.emit(f.pend...) // the C2 held back was text
			f.pend = f.pend[:0]
		} else if f.st == fString {
			f.pend = f.pend[:0]
		} else if f.st == fOSCHead { // the C2 ends the number: decide now
			f.pend = f.pend[:len(f.pend)-1]
			f.oscHead(0xc2)
		}
	}
	cont := f.utf8(b)
	if b == 0xc2 {
		f.c2 = true
		if f.st == fGround || f.st == fString || f.st == fOSCHead {
			f.pend = append(f.pend, b)
			return
		}
	}
	if b == 0x1b || b == 0x18 || b == 0x1a || b >= 0x80 && b <= 0x9f && !(cont && (f.st == fGround || f.st == fString && b != 0x9c)) {
		f.control(b, false)
	} else {
		f.plain(b)
	}
}

// utf8 tracks UTF-8 and reports whether b continues a character.
func (f *termFilter) utf8(b byte) bool {
	if f.u8 > 0 && b >= f.u8lo && b <= f.u8hi {
		f.u8--
		f.u8lo, f.u8hi = 0x80, 0xbf
		return true
	}
	f.u8, f.u8lo, f.u8hi = 0, 0x80, 0xbf
	if b >= 0xc2 && b <= 0xdf {
		f.u8 = 1
	} else if b >= 0xe0 && b <= 0xef {
		f.u8 = 2
		if b == 0xe0 {
			f.u8lo = 0xa0
		} else if b == 0xed {
			f.u8hi = 0x9f
		}
	} else if b >= 0xf0 && b <= 0xf4 {
		f.u8 = 3
		if b == 0xf0 {
			f.u8lo = 0x90
		} else if b == 0xf4 {
			f.u8hi = 0x8f
		}
	}
	return false
}

func (f *termFilter) emit(b ...byte) { f.out = append(f.out, b...) }

// keep writes everything pending: the sequence just decided on is kept.
func (f *termFilter) keep() {
	f.emit(f.pend...)
	f.pend, f.exec, f.close = f.pend[:0], f.exec[:0], ""
}

// discard drops everything pending: the sequence just decided on is
// dropped. The output is closed first if it was left inside a sequence,
// and the C0 controls a terminal would have executed are written.
func (f *termFilter) discard() {
	f.out = append(f.out, f.close...)
	f.emit(f.exec...)
	f.pend, f.exec, f.close = f.pend[:0], f.exec[:0], ""
}

// hold adds b to the pending bytes; past maxPending a sequence that is
// always kept flows on, and an undecided one is dropped.
func (f *termFilter) hold(b byte) {
	f.pend = append(f.pend, b)
	if len(f.pend) <= maxPending {
		return
	}
	switch f.st {
	case fEsc, fEscInt, fCSI:
		f.keep()
		f.close = "\x18" // CAN cancels the sequence the output is now inside
	default:
		k := kDCS
		if f.st == fOSCHead {
			k = kOSC
		}
		f.discard()
		f.st, f.kind, f.drop = fString, k, true
	}
}
