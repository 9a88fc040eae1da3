package shell

// st is ST (ESC \), which closes a string the output was left inside.
const st = "\x1b\\"

// dropOSC reports whether the OSC numbered n is dropped: 0, 1, 2 (window
// and icon titles), 3 (an X property, the title among them), 30
// (Konsole's tab title), 46 (xterm's log file), 52 (clipboard), 1337
// (iTerm2's: File=, Copy, SetUserVar, ...), 5113 (kitty's file
// transfer) and 5522 (kitty's clipboard).
func dropOSC(n int) bool {
	switch n {
	case 0, 1, 2, 3, 30, 46, 52, 1337, 5113, 5522:
		return true
	}
	return false
}

// oscDropped decides the OSC whose number has just ended; first is the
// byte after it (0: the sequence ended there). Without a number it is
// read as 0 (tmux does), except the Linux console's palette sequences
// (ESC ] P, ESC ] R); dtterm's titles (ESC ] l, L, I) are dropped so.
func (f *termFilter) oscDropped(first byte) bool {
	if f.digits > 0 {
		return f.sig > maxOSCSignificant || dropOSC(f.num)
	}
	return first != 'P' && first != 'R'
}

// control reads ESC, CAN, SUB or a C1 control c (0x80-0x9F; utf8: it
// came as C2 c, the C2 pending).
func (f *termFilter) control(c byte, utf8 bool) {
	intro := []byte{c}
	// In UTF-8 the C2 before c is pending, unless it went out with a
	// sequence that grew past maxPending and flowed on: then only c is
	// left to write.
	if n := len(f.pend); utf8 && n > 0 && f.pend[n-1] == 0xc2 {
		f.pend = f.pend[:n-1]
		intro = []byte{0xc2, c}
	}
	if f.end(c, intro) {
		return
	}
	f.pend = append(f.pend, intro...)
	f.begin(c)
}

// end ends or cancels the sequence c meets, as a terminal does, and
// reports whether c was its terminator (and so read).
func (f *termFilter) end(c byte, intro []byte) bool {
	terminator := c == 0x9c || c == 0x18 || c == 0x1a
	switch f.st {
	case fEsc, fEscInt, fCSI, fDCSHead:
		// Cancelled without effect: it is written or dropped with the
		// sequence c starts (CAN and SUB: written, see begin).
		f.afterDrop = false
	case fOSCHead:
		drop := f.oscDropped(0)
		f.st = fGround
		if drop {
			f.discard()
		} else {
			if terminator {
				f.pend = append(f.pend, intro...)
			}
			f.keep()
			if !terminator {
				f.close = st // the output is inside the OSC until c ends it
			}
		}
		f.afterDrop = drop && c == 0x1b
		return terminator
	case fString:
		f.st = fGround
		f.afterDrop = f.drop && c == 0x1b
		if terminator {
			if !f.drop {
				f.emit(intro...)
				f.close = ""
			}
			return true
		}
	}
	return false
}

// begin starts what c introduces; its bytes are pending.
func (f *termFilter) begin(c byte) {
	switch c {
	case 0x1b:
		f.st = fEsc
	case 0x90:
		f.st = fDCSHead
	case 0x9b:
		f.st = fCSI
	case 0x9d:
		f.st, f.digits, f.sig, f.num = fOSCHead, 0, 0, 0
	case 0x98, 0x9e: // SOS, PM
		f.startString(kOther, false)
	case 0x9f: // APC: a title in tmux, kitty's graphics
		f.startString(kOther, true)
	default: // CAN, SUB, ST and the other C1 controls: executed
		f.keep()
		f.st = fGround
	}
}

// startString starts a string's body, its introducer pending.
func (f *termFilter) startString(k strKind, drop bool) {
	if drop {
		f.discard()
	} else {
		f.keep()
		f.close = st
	}
	f.st, f.kind, f.drop = fString, k, drop
}

// plain reads a byte that is not ESC, CAN, SUB or a C1 control.
func (f *termFilter) plain(b byte) {
	switch f.st {
	case fGround:
		f.emit(b)
	case fEsc:
		f.escape(b)
	case fEscInt, fCSI:
		if b < 0x20 {
			f.exec = append(f.exec, b)
			f.hold(b)
		} else if f.st == fEscInt && b >= 0x30 && b <= 0x7e || f.st == fCSI && b >= 0x40 && b <= 0x7e {
			f.hold(b)
			f.keep()
			f.st = fGround
		} else {
			f.hold(b)
		}
	case fDCSHead:
		f.hold(b)
		if f.st == fDCSHead && b >= 0x40 && b <= 0x7e {
			// tmux passes a DCS ending in t ("ESC P tmux; ...") on to
			// the terminal around it.
			f.startString(kDCS, b == 't')
		}
	case fOSCHead:
		f.oscHead(b)
	case fString:
		if b == 0x07 && (f.kind == kOSC || f.kind == kTitle) {
			f.st = fGround
			if f.drop {
				return
			}
			f.close = ""
		}
		if !f.drop {
			f.emit(b)
		}
	}
}

// escape reads the byte after ESC.
func (f *termFilter) escape(b byte) {
	if b < 0x20 || b >= 0x7f {
		// C0 controls are executed where they stand; DEL and bytes
		// above 0x7F are ignored (tmux), the escape goes on.
		if b < 0x20 {
			f.exec = append(f.exec, b)
		}
		f.hold(b)
		return
	}
	afterDrop := f.afterDrop
	f.afterDrop = false
	f.hold(b)
	if f.st != fEsc {
		return // held too long: it flows on
	}
	if b == '\\' && afterDrop { // the ST of the string just dropped
		f.discard()
		f.st = fGround
		return
	}
	if b <= 0x2f {
		f.st = fEscInt
		return
	}
	switch b {
	case '[':
		f.st = fCSI
	case ']':
		f.st, f.digits, f.sig, f.num = fOSCHead, 0, 0, 0
	case 'P':
		f.st = fDCSHead
	case 'X', '^':
		f.startString(kOther, false)
	case '_':
		f.startString(kOther, true)
	case 'k': // screen's and tmux's title: ESC k title ST
		f.startString(kTitle, true)
	default:
		f.keep()
		f.st = fGround
	}
}

// oscHead reads a byte of an OSC's number.
func (f *termFilter) oscHead(b byte) {
	if b == 0x07 {
		f.st = fGround
		if f.oscDropped(0) {
			f.discard()
			return
		}
		f.hold(b)
		f.keep()
	} else if b < 0x20 { // C0 controls inside an OSC are ignored: "5\n2" is 52
		f.hold(b)
	} else if b >= '0' && b <= '9' {
		f.digits++
		if f.sig > 0 || b != '0' {
			f.sig++
			if f.sig <= maxOSCSignificant {
				f.num = f.num*10 + int(b-'0')
			}
		}
		f.hold(b)
		if f.st == fOSCHead && f.digits > maxOSCDigits {
			f.discard()
			f.st, f.kind, f.drop = fString, kOSC, true
		}
	} else {
		drop := f.oscDropped(b)
		f.hold(b)
		if f.st == fOSCHead {
			f.startString(kOSC, drop)
		}
	}
}
