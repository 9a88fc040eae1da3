package shell

import "io"

// maxDropped bounds how much of one dropped OSC sequence is swallowed
// before output flows again (an unterminated sequence must not hide the
// rest of the session).
const maxDropped = 1 << 20

// oscFilter passes output through unchanged except for the OSC sequences
// it drops: 52 (clipboard writes) and 0, 1, 2 (window and icon titles),
// introduced by ESC ] or by C1 OSC in UTF-8 (C2 9D) and ended by BEL,
// ESC \ or C1 ST (C2 9C). A sequence split between two writes is
// recognised all the same. Every other byte, other OSC sequences
// included, is written as it came.
type oscFilter struct {
	w       io.Writer
	st      oscState
	pending []byte // bytes held while a sequence is recognised
	num     int    // the OSC number so far
	digits  int
	dropped int
}

type oscState int

const (
	stGround  oscState = iota
	stEsc              // after ESC
	stC2               // after C2 (maybe C1 OSC)
	stNum              // after the introducer: digits of the number
	stPass             // inside an OSC sequence that is kept
	stPassEsc          // ESC inside a kept one (ST follows?)
	stPassC2           // C2 inside a kept one
	stDrop             // inside a dropped one
	stDropEsc
	stDropC2
)

func dropOSC(n int) bool { return n == 0 || n == 1 || n == 2 || n == 52 }

// Write filters p; it reports len(p) when the underlying write succeeds.
func (f *oscFilter) Write(p []byte) (int, error) {
	out := make([]byte, 0, len(p)+len(f.pending))
	for i := 0; i < len(p); i++ {
		b := p[i]
		switch f.st {
		case stGround:
			switch b {
			case 0x1b:
				f.st, f.pending = stEsc, append(f.pending[:0], b)
			case 0xc2:
				f.st, f.pending = stC2, append(f.pending[:0], b)
			default:
				out = append(out, b)
			}
		case stEsc, stC2:
			if (f.st == stEsc && b == ']') || (f.st == stC2 && b == 0x9d) {
				f.st, f.num, f.digits = stNum, 0, 0
				f.pending = append(f.pending, b)
				continue
			}
			out = append(out, f.pending...)
			f.pending, f.st = f.pending[:0], stGround
			i-- // this byte again, in the ground state
		case stNum:
			switch {
			case b >= '0' && b <= '9' && f.digits < 8:
				f.num = f.num*10 + int(b-'0')
				f.digits++
				f.pending = append(f.pending, b)
			case f.digits > 0 && dropOSC(f.num):
				f.pending, f.st, f.dropped = f.pending[:0], stDrop, 0
				i-- // the separator or terminator, in the dropped sequence
			default:
				out = append(out, f.pending...)
				f.pending, f.st = f.pending[:0], stPass
				i--
			}
		case stPass, stPassEsc, stPassC2:
			out = append(out, b)
			switch {
			case b == 0x07, f.st == stPassEsc && b == '\\', f.st == stPassC2 && b == 0x9c:
				f.st = stGround
			case b == 0x1b:
				f.st = stPassEsc
			case b == 0xc2:
				f.st = stPassC2
			default:
				f.st = stPass
			}
		case stDrop, stDropEsc, stDropC2:
			f.dropped++
			switch {
			case b == 0x07, f.st == stDropEsc && b == '\\', f.st == stDropC2 && b == 0x9c, f.dropped > maxDropped:
				f.st = stGround
			case b == 0x1b:
				f.st = stDropEsc
			case b == 0xc2:
				f.st = stDropC2
			default:
				f.st = stDrop
			}
		}
	}
	if len(out) > 0 {
		if _, err := f.w.Write(out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}
