package api

import "strings"

// This file reads a text as a terminal shows it. A program's output
// (exec, run, a job's log into a pipe) reaches the terminal with its
// escape sequences and controls, and the terminal shows a secret whole
// across them: "ya29.abc" ESC "[1m" "defghijk…" is one token on the
// screen. The redactor finds secrets, registered ones and those of the
// patterns alike, in that reading too (screenSpans), and redacts the
// bytes they span in the text itself, the sequences inside included; it
// still reads the text as written as well, for what is inside a sequence
// (a window title) and for the readers that show the sequences as text
// (the log file, a sanitizer that draws ESC as a symbol).

// screenText is s as a terminal shows it: without its escape sequences
// (screenSkip) and without the controls a terminal ignores (tab, newline
// and carriage return stay, as they separate what they split), a
// control's picture read as that control (screenByte); and for each byte
// of that its index in s (int32: half the memory of an int on a coloured
// line; no text the redactor is given reaches 2 GiB). Without
// sequences, an ESC is skipped as one control with a CSI's parameters
// and what follows is read as text: s as a sanitizer that draws ESC as ␛
// shows it, with a title's text and a string sequence that never ends,
// which a terminal hides but such a sanitizer shows, and with the final
// byte of each sequence. again reports whether that reading may show
// more: a string sequence (a title, a DCS) was skipped, a sequence that
// starts with ␛ (a sanitizer drew it as text), or one whose final byte
// joins the word that follows (finalJoins).
func screenText(s string, sequences bool) (f string, at []int32, again bool) {
	b := make([]byte, 0, len(s))
	at = make([]int32, 0, len(s))
	for i := 0; i < len(s); {
		if c := s[i]; c >= 0x20 && c < 0x7f { // printable ASCII: most bytes
			b = append(b, c)
			at = append(at, int32(i))
			i++
			continue
		}
		c, n, ctl := screenByte(s, i)
		switch {
		case c == 0x1b && sequences:
			end, str := screenSkip(s, i+n)
			again = again || str || n > 1 || finalJoins(s, end)
			i = end
			continue
		case c == 0x1b:
			// A CSI's parameters go with its ESC; its final byte, which a
			// terminal takes from the text (ESC [ y a29.…), stays.
			if i += n; i < len(s) && s[i] == '[' {
				for i++; i < len(s) && s[i] >= 0x20 && s[i] <= 0x3f; i++ {
				}
			}
			continue
		case ctl:
			i += n
			continue
		}
		for k := range n {
			b = append(b, s[i+k])
			at = append(at, int32(i+k))
		}
		i += n
	}
	return string(b), at, again
}

// finalJoins reports whether the escape sequence that ends at s[end-1]
// took for its final byte a letter of a word the text goes on with
// (ESC [ y followed by a29.…, ESC [ 1 B followed by earer): the letter a
// terminal takes as the sequence's end may be the first of a secret or
// of a pattern's word, so the text is read again with the sequences as
// text. An SGR's m, the commonest, starts no pattern's word.
func finalJoins(s string, end int) bool {
	if end < 2 || end >= len(s) {
		return false
	}
	f, next := s[end-1], s[end]
	letter := func(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
	return letter(f) && f != 'm' && (letter(next) || '0' <= next && next <= '9' || next == '.' || next == '-' || next == '_')
}

// screenByte reads s at i for screenText: c is the byte there, n how
// many bytes of s it takes, and ctl whether it is a control the
// terminal ignores: C0 but tab, newline and carriage return, DEL, a C1
// in UTF-8 (c its code). colabdash's sanitizers show a control as its
// picture (␀ … ␟, ␡, U+2400 through U+2421) and a C1 control as U+FFFD;
// a log drawn through them (the jobs' drawer, the log viewer) is
// redacted as drawn, so a picture is read as its control (␛ as an ESC,
// ␇ as a BEL) and U+FFFD as a control.
func screenByte(s string, i int) (c byte, n int, ctl bool) {
	switch b := s[i]; {
	case b == '\t' || b == '\n' || b == '\r':
		return b, 1, false
	case b < 0x20 || b == 0x7f:
		return b, 1, true
	case b == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f:
		return s[i+1], 2, true
	case b == 0xe2 && i+2 < len(s) && s[i+1] == 0x90 && s[i+2] >= 0x80 && s[i+2] <= 0xa1 && s[i+2] != 0xa0:
		c := s[i+2] - 0x80
		if s[i+2] == 0xa1 {
			c = 0x7f
		}
		return c, 3, c != '\t' && c != '\n' && c != '\r'
	case b == 0xef && i+2 < len(s) && s[i+1] == 0xbf && s[i+2] == 0xbd:
		return 0x7f, 3, true
	}
	return s[i], 1, false
}

// drawnControls reports whether s holds a control drawn as a picture or
// as U+FFFD (screenByte).
func drawnControls(s string) bool {
	return strings.Contains(s, "\xe2\x90") || strings.Contains(s, "\ufffd")
}

// screenSkip is the index in s past the escape sequence whose ESC ends
// at s[j-1], and whether it is a string sequence (screenByte: an ESC or its picture), read as the terminals'
// common parser (ECMA-48, DEC) reads it: a CSI (ESC [) to its final
// byte, an OSC (ESC ]) to BEL or the string terminator, a DCS, SOS, PM
// or APC (ESC P, X, ^, _) to the string terminator (ESC \ or C1 ST), any
// other to its final byte after its intermediates. CAN and SUB cancel a
// sequence; an ESC inside one ends it and starts the next. C1 controls
// are taken for single controls, not for the introducers a terminal in
// UTF-8 mode seldom takes them for; a sequence that does not end before
// s does runs to its end.
func screenSkip(s string, j int) (end int, str bool) {
	if j >= len(s) {
		return j, false
	}
	switch s[j] {
	case '[':
		for j++; j < len(s); {
			c, n, _ := screenByte(s, j)
			switch {
			case c >= 0x40 && c <= 0x7e && n == 1, c == 0x18, c == 0x1a:
				return j + n, false
			case c == 0x1b, c >= 0x80 && n == 1:
				return j, false // the next sequence, or text past ASCII: not the CSI's
			}
			j += n
		}
		return j, false
	case ']', 'P', 'X', '^', '_':
		osc := s[j] == ']'
		for j++; j < len(s); {
			c, n, _ := screenByte(s, j)
			switch {
			case c == 0x07 && osc, c == 0x18, c == 0x1a, c == 0x9c && n == 2:
				return j + n, true
			case c == 0x1b:
				if j+n < len(s) && s[j+n] == '\\' {
					return j + n + 1, true
				}
				return j, true
			}
			j += n
		}
		return j, true
	}
	for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
		j++
	}
	if j < len(s) && s[j] >= 0x30 && s[j] <= 0x7e {
		return j + 1, false
	}
	return j, false // a lone ESC: what follows is read on its own
}

// screenSpans are the spans, in s, of the secrets in s as a terminal
// shows it (screenText): those of m, and those of the patterns when
// patterns is set. Each reaches over the sequences and controls inside
// it. When the reading without sequences may show more (a title's text,
// a string that never ends, sequences drawn as ␛ and text), s is also
// read so.
func (m *matcher) screenSpans(s string, patterns bool) []span {
	f, at, again := screenText(s, true)
	spans := m.textSpans(f, at, patterns)
	if again {
		f, at, _ = screenText(s, false)
		spans = append(spans, m.textSpans(f, at, patterns)...)
	}
	return spans
}

// textSpans are the spans of the secrets in f, a reading of a text (at:
// the index in the text of each byte of f), in the text's indexes: those
// of m, and those of the patterns when patterns is set.
func (m *matcher) textSpans(f string, at []int32, patterns bool) []span {
	spans, w, _ := m.spans(f)
	if patterns && mayHoldPattern(f) {
		spans = patternSpans(f, spans, w)
	}
	for i, sp := range spans {
		spans[i] = span{int(at[sp.from]), int(at[sp.to-1]) + 1}
	}
	return spans
}

// patternSpans is spans, the matches of the matcher in f (which holds
// the trigger words w or fewer), with the spans the patterns redact in f
// added: f is read as Redact reads a text, the patterns applied one after
// the other on what the ones before left, but each redaction is marked in
// place (markSpans) instead of replaced, so every span stays in f's
// indexes.
func patternSpans(f string, spans []span, w words) []span {
	if len(spans) > 0 {
		f = markSpans(f, spans)
	}
	applyPatterns(f, w, func(s string, found []span) string {
		for _, sp := range found {
			if sp.to > sp.from {
				spans = append(spans, sp)
			}
		}
		return markSpans(s, found)
	})
	return spans
}

// markSpans is s with the bytes of each of spans overwritten by a mark
// as long: "[" then NUL bytes. Like Redacted, it is no token, word or
// placeholder to a pattern, and it starts with the same bracket; a
// screen text holds no NUL of its own.
func markSpans(s string, spans []span) string {
	b := []byte(s)
	for _, sp := range spans {
		if sp.to <= sp.from {
			continue
		}
		b[sp.from] = '['
		clear(b[sp.from+1 : sp.to])
	}
	return string(b)
}

// mayHoldPattern reports whether s may hold a match of a pattern: it
// holds one of patternBytes or "29." (TestPatternsNeedTheirBytes).
func mayHoldPattern(s string) bool {
	return strings.ContainsAny(s, patternBytes) || strings.Contains(s, "29.")
}
