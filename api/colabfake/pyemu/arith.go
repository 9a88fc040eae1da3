package pyemu

import (
	"math/big"
	"strings"
)

// evalInt evaluates integer arithmetic exactly, as Python does with its
// unbounded ints: decimal literals (no leading zero but 0 itself), binary
// + - *, unary + -, parentheses and spaces. It returns the decimal value,
// or false for anything else ("**", "/", an empty operand, a name).
func evalInt(expr string) (string, bool) {
	p := arith{s: expr}
	v, ok := p.sum()
	if !ok || p.skip() != 0 {
		return "", false
	}
	return v.String(), true
}

// arith is a recursive-descent reader of evalInt's grammar over s from i:
//
//	sum     = product { ("+" | "-") product }
//	product = unary { "*" unary }
//	unary   = ("+" | "-") unary | "(" sum ")" | digits
type arith struct {
	s     string
	i     int
	depth int
}

// maxArithDepth bounds nesting (parentheses and unary signs), so a
// hostile cell cannot exhaust the stack.
const maxArithDepth = 200

// skip passes spaces and returns the next byte, 0 at the end.
func (p *arith) skip() byte {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
	if p.i == len(p.s) {
		return 0
	}
	return p.s[p.i]
}

func (p *arith) sum() (*big.Int, bool) {
	v, ok := p.product()
	for ok {
		op := p.skip()
		if op != '+' && op != '-' {
			break
		}
		p.i++
		var w *big.Int
		if w, ok = p.product(); ok && op == '+' {
			v.Add(v, w)
		} else if ok {
			v.Sub(v, w)
		}
	}
	return v, ok
}

func (p *arith) product() (*big.Int, bool) {
	v, ok := p.unary()
	for ok && p.skip() == '*' {
		p.i++
		if p.i < len(p.s) && p.s[p.i] == '*' {
			return nil, false // a power, which this does not evaluate
		}
		var w *big.Int
		if w, ok = p.unary(); ok {
			v.Mul(v, w)
		}
	}
	return v, ok
}

func (p *arith) unary() (*big.Int, bool) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxArithDepth {
		return nil, false
	}
	switch c := p.skip(); {
	case c == '+' || c == '-':
		p.i++
		v, ok := p.unary()
		if ok && c == '-' {
			v.Neg(v)
		}
		return v, ok
	case c == '(':
		p.i++
		v, ok := p.sum()
		if !ok || p.skip() != ')' {
			return nil, false
		}
		p.i++
		return v, true
	case c >= '0' && c <= '9':
		end := p.i
		for end < len(p.s) && p.s[end] >= '0' && p.s[end] <= '9' {
			end++
		}
		lit := p.s[p.i:end]
		p.i = end
		if len(lit) > 1 && strings.HasPrefix(lit, "0") {
			return nil, false // Python has no leading zeros
		}
		v, ok := new(big.Int).SetString(lit, 10)
		return v, ok
	}
	return nil, false
}
