package shell

// detacher finds ssh's escape in typed input: "~." at the start of a line
// (after CR or LF, or first of all) detaches; "~~" there sends one "~";
// a "~" followed by anything else is sent as typed.
type detacher struct {
	midLine   bool // false at the start of a line (and of the session)
	heldTilde bool
}

// feed returns what to send of p, and whether the user asked to detach
// (what came before the escape is returned too).
func (d *detacher) feed(p []byte) ([]byte, bool) {
	out := make([]byte, 0, len(p)+1)
	for _, b := range p {
		if d.heldTilde {
			d.heldTilde = false
			switch b {
			case '.':
				return out, true
			case '~':
				out = append(out, '~')
				d.midLine = true
				continue
			}
			out = append(out, '~')
			d.midLine = true
		}
		if !d.midLine && b == '~' {
			d.heldTilde = true
			continue
		}
		out = append(out, b)
		d.midLine = b != '\r' && b != '\n'
	}
	return out, false
}
