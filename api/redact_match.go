package api

import (
	"slices"
	"sync"
)

// This file is the redactor's matcher: one Aho-Corasick automaton over
// every form of every registered secret, built once per change of the
// set (Redactor.matcherNow) and shared read-only by every Redact call,
// so a redaction costs one pass over the text whatever the number of
// secrets. Matching ignores ASCII case: a secret echoed upper-cased
// (a hex token in capitals, %2f for %2F) is the same secret. The same
// pass finds the words that gate the patterns (triggerWords) and the
// control characters a secret may be split by, so a text with neither
// a secret nor such a word nor a control is read once.

// matchKind says what a pattern of the matcher is.
type matchKind uint8

const (
	kindWhole   matchKind = iota // a whole form: the match is redacted
	kindHead                     // the first minPartial bytes of a value: redacted with what follows of it
	kindTail                     // the last minPartial bytes of a value: redacted with what precedes of it
	kindWord                     // a word that gates patterns (or a letter taken for one's): its words
	kindControl                  // a control character (isControl)
)

// pattern is one string the matcher looks for: its length, what it is,
// and for a head or a tail the whole value it belongs to (lower-cased).
type pattern struct {
	n     int
	kind  matchKind
	raw   string
	words words // a kindWord's words
	next  int32 // the next pattern ending at the same state, -1 for none
}

// matcher is the automaton: a trie of the lower-cased patterns with
// failure links. The root and the states one byte below it keep their
// moves in a table (many secrets share a first byte, and most text moves
// through these states); every other state keeps its children as a list
// (first child, next sibling), which is short: secrets share little
// beyond their first two bytes.
type matcher struct {
	root     [256]int32   // the root's move for each byte, a capital as its small letter once linked (0: stay at the root)
	table    []int32      // for each state, its move table in tables, -1 for none
	tables   [][256]int32 // the move tables of the states one byte deep that have children
	child    []int32      // first child of each state, 0 for none
	sibling  []int32      // next sibling, 0 for none
	label    []byte       // the byte that leads to each state
	fail     []int32      // the failure link of each state
	out      []int32      // the first pattern ending at each state, -1 for none
	dict     []int32      // the nearest state down the failure chain with a pattern, 0 for none
	emits    []bool       // a pattern ends at the state or down its failure chain
	patterns []pattern
}

// lowerASCII is b lower-cased when it is an ASCII capital.
func lowerASCII(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// lowerString is s with its ASCII capitals lower-cased.
func lowerString(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lowerASCII(c)
	}
	return string(b)
}

// newMatcher builds the automaton of the forms of the values in raws
// (each value's whole forms in forms[i]). Values of at least minPartial
// bytes are also found by their head and tail.
func newMatcher(raws []string, forms [][]string) *matcher {
	m := &matcher{child: []int32{0}, sibling: []int32{0}, label: []byte{0}, out: []int32{-1}, table: []int32{-1}}
	for i, raw := range raws {
		low := lowerString(raw)
		for _, f := range forms[i] {
			m.insert(lowerString(f), pattern{n: len(f), kind: kindWhole})
		}
		if len(raw) >= minPartial {
			m.insert(low[:minPartial], pattern{n: minPartial, kind: kindHead, raw: low})
			m.insert(low[len(low)-minPartial:], pattern{n: minPartial, kind: kindTail, raw: low})
		}
	}
	for _, tw := range triggerWords {
		m.insert(tw.text, pattern{n: len(tw.text), kind: kindWord, raw: tw.text, words: tw.w})
	}
	for _, f := range foldsToASCII {
		m.insert(f, pattern{n: len(f), kind: kindWord, raw: f, words: allWords})
	}
	for c := 0; c < 0x100; c++ {
		if _, ok := isControl(string([]byte{byte(c)}), 0); ok {
			m.insert(string([]byte{byte(c)}), pattern{n: 1, kind: kindControl})
		}
	}
	for c := 0x80; c <= 0x9f; c++ {
		m.insert(string([]byte{0xc2, byte(c)}), pattern{n: 2, kind: kindControl})
	}
	m.link()
	return m
}

// wordMatcher is the matcher of a redactor that holds no secret: the
// words and the controls only.
var wordMatcher = sync.OnceValue(func() *matcher { return newMatcher(nil, nil) })

// move is the state after s on byte b in the trie, 0 when there is none.
func (m *matcher) move(s int32, b byte) int32 {
	if s == 0 {
		return m.root[b]
	}
	if t := m.table[s]; t >= 0 {
		return m.tables[t][b]
	}
	for c := m.child[s]; c != 0; c = m.sibling[c] {
		if m.label[c] == b {
			return c
		}
	}
	return 0
}

// insert adds the lower-cased pattern text p.
func (m *matcher) insert(p string, pat pattern) {
	s := int32(0)
	for i := 0; i < len(p); i++ {
		next := m.move(s, p[i])
		if next == 0 {
			next = int32(len(m.label))
			m.label = append(m.label, p[i])
			m.child = append(m.child, 0)
			m.sibling = append(m.sibling, 0)
			m.out = append(m.out, -1)
			m.table = append(m.table, -1)
			if s == 0 {
				m.root[p[i]] = next
			} else {
				// A state one byte deep gets its move table with its first
				// child (a single byte's pattern, a control, needs none).
				if m.table[s] < 0 && m.root[m.label[s]] == s {
					m.table[s] = int32(len(m.tables))
					m.tables = append(m.tables, [256]int32{})
				}
				if t := m.table[s]; t >= 0 {
					m.tables[t][p[i]] = next
				}
				m.sibling[next] = m.child[s]
				m.child[s] = next
			}
		}
		s = next
	}
	for q := m.out[s]; q >= 0; q = m.patterns[q].next {
		if m.patterns[q].kind == pat.kind && m.patterns[q].raw == pat.raw {
			return // the same pattern twice (a form equal to another)
		}
	}
	pat.next = m.out[s]
	m.out[s] = int32(len(m.patterns))
	m.patterns = append(m.patterns, pat)
}

// link computes the failure and dictionary links, breadth first.
func (m *matcher) link() {
	n := len(m.label)
	m.fail, m.dict = make([]int32, n), make([]int32, n)
	queue := make([]int32, 0, n)
	for b := 0; b < 256; b++ {
		if c := m.root[b]; c != 0 {
			queue = append(queue, c)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for c := m.child[s]; c != 0; c = m.sibling[c] {
			f := m.fail[s]
			for f != 0 && m.move(f, m.label[c]) == 0 {
				f = m.fail[f]
			}
			m.fail[c] = m.move(f, m.label[c])
			if m.out[m.fail[c]] >= 0 {
				m.dict[c] = m.fail[c]
			} else {
				m.dict[c] = m.dict[m.fail[c]]
			}
			queue = append(queue, c)
		}
	}
	// The moves from the root and from one byte deep, which matchIn
	// takes on the text's own bytes, are taken alike on a capital.
	for c := byte('A'); c <= 'Z'; c++ {
		m.root[c] = m.root[c+'a'-'A']
		for t := range m.tables {
			m.tables[t][c] = m.tables[t][c+'a'-'A']
		}
	}
	m.emits = make([]bool, n)
	for st := range m.emits {
		m.emits[st] = m.out[st] >= 0 || m.dict[st] != 0
	}
}

// span is a part of a text to redact: [from, to).
type span struct{ from, to int }

// redact returns s with every match replaced by Redacted: a whole form
// as found, a head extended over what follows of its value, a tail over
// what precedes it; overlapping spans become one. A text with controls
// or escape sequences is also read as a terminal shows it (screenSpans).
func (m *matcher) redact(s string) string {
	s, _ = m.redactWords(s, false)
	return s
}

// redactWords is redact, and the trigger words s holds (a superset of
// those the result holds). With patterns, the secrets the patterns find
// in s as a terminal shows it are redacted too (Redact applies them to
// the text as written after).
func (m *matcher) redactWords(s string, patterns bool) (string, words) {
	if m == nil {
		m = wordMatcher()
	}
	spans, w, ctl := m.spans(s)
	if ctl || drawnControls(s) {
		// A secret split by controls or escape sequences
		// (ya29.SECRET\x07TOKEN, ya29.SEC\x1b[1mRET), or by their
		// pictures, reads whole on a terminal: matched there, its span
		// reaches over them in s.
		spans = append(spans, m.screenSpans(s, patterns)...)
	}
	if len(spans) == 0 {
		return s, w
	}
	return replaceSpans(s, spans), w
}

// isControl reports whether s[i] starts a control character a sanitizer
// drops or a terminal ignores: C0 but tab, newline and carriage return
// (which stay spacing, so they never join what they split), DEL, or a C1
// in UTF-8 (C2 80 through C2 9F, two bytes: n).
func isControl(s string, i int) (n int, ok bool) {
	switch b := s[i]; {
	case b == '\t' || b == '\n' || b == '\r':
		return 0, false
	case b < 0x20 || b == 0x7f:
		return 1, true
	case b == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f:
		return 2, true
	}
	return 0, false
}

// spans are the matches in s, a head extended over what follows of its
// value, a tail over what precedes it (unmerged, in s's indexes); w the
// trigger words s holds; ctl whether s holds a control character.
func (m *matcher) spans(s string) (spans []span, w words, ctl bool) { return matchIn(m, s) }

// matchIn is m.spans of a string or of bytes.
func matchIn[T string | []byte](m *matcher, s T) (spans []span, w words, ctl bool) {
	st := int32(0)
	for i := 0; i < len(s); i++ {
		switch {
		case st == 0:
			if st = m.root[s[i]]; st == 0 {
				continue // most bytes of most text
			}
		case m.table[st] >= 0:
			// One byte deep: failing leads to the root.
			if next := m.tables[m.table[st]][s[i]]; next != 0 {
				st = next
			} else {
				st = m.root[s[i]]
			}
		default:
			b := lowerBytes[s[i]]
			for st != 0 && m.move(st, b) == 0 {
				st = m.fail[st]
			}
			st = m.move(st, b)
		}
		if !m.emits[st] {
			continue
		}
		for o := st; o != 0; o = m.dict[o] {
			for q := m.out[o]; q >= 0; q = m.patterns[q].next {
				switch p := &m.patterns[q]; p.kind {
				case kindWord:
					w |= p.words
				case kindControl:
					ctl = true
				default:
					spans = append(spans, spanOf(p, s, i+1))
				}
			}
		}
	}
	return spans, w, ctl
}

// lowerBytes lower-cases ASCII capitals, byte by byte.
var lowerBytes = func() (t [256]byte) {
	for c := range t {
		t[c] = lowerASCII(byte(c))
	}
	return t
}()

// spanOf is where a match of p ending at end redacts in s.
func spanOf[T string | []byte](p *pattern, s T, end int) span {
	from, to := end-p.n, end
	switch p.kind {
	case kindHead:
		n := p.n
		for to < len(s) && n < len(p.raw) && lowerASCII(s[to]) == p.raw[n] {
			to++
			n++
		}
	case kindTail:
		n := p.n
		for from > 0 && n < len(p.raw) && lowerASCII(s[from-1]) == p.raw[len(p.raw)-1-n] {
			from--
			n++
		}
	}
	return span{from, to}
}

// replaceSpans replaces each of spans (merged where they overlap) in s
// with Redacted.
func replaceSpans(s string, spans []span) string {
	slices.SortFunc(spans, func(a, b span) int { return a.from - b.from })
	out := make([]byte, 0, len(s))
	at := 0
	for i := 0; i < len(spans); {
		from, to := spans[i].from, spans[i].to
		for i++; i < len(spans) && spans[i].from < to; i++ {
			to = max(to, spans[i].to)
		}
		if from < at {
			from = at
		}
		out = append(out, s[at:from]...)
		out = append(out, Redacted...)
		at = to
	}
	return string(append(out, s[at:]...))
}
