package pyemu

// The expressions a print can show, evaluated exactly as Python would or
// not at all (the statement then prints what would run): literals, loop
// variables, integer arithmetic over them, f-strings of those, a string
// repeated ('#' * n) and, in a script, sys.argv and __file__.

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

var (
	strLit = `"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'`
	// a string literal, the whole expression.
	stringLiteral = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:` + strLit + `)$`) })
	// an f-string: its quoted body.
	fString = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[fF](` + strLit + `)$`) })
	// a number, True, False or None: printed as written.
	plainLiteral = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:-?[0-9]+(?:\.[0-9]+)?|True|False|None)$`)
	})
	identifier = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`) })
	// integer arithmetic over numbers and names.
	intExpr = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9A-Za-z_+\-*() ]+$`) })
	// 'x' * n and n * 'x'.
	repeatLeft  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(` + strLit + `)\s*\*\s*(.+)$`) })
	repeatRight = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.+?)\s*\*\s*(` + strLit + `)$`) })
	// print's keyword arguments.
	printKeyword = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(end|sep|file|flush)\s*=\s*(.*)$`) })
	// sys.stdout.write(x), sys.stderr.flush() ...
	streamCall = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^sys\.(stdout|stderr)\.(write|flush)\(\s*(.*?)\s*\)$`)
	})
	// sys.argv[N]
	argvIndex = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^sys\.argv\[\s*(-?[0-9]+)\s*\]$`) })
)

// errNoValue: an expression pyemu does not evaluate.
var errNoValue = errors.New("pyemu: not evaluated")

// pyError is the Python exception an expression raised.
type pyError struct{ name, value string }

func (p *pyError) Error() string { return p.name + ": " + p.value }

// value returns str(expr) as Python prints it, errNoValue when pyemu does
// not evaluate expr, or the *pyError it raises.
func (e *emulation) value(expr string, vars map[string]int) (string, error) {
	expr = strings.TrimSpace(expr)
	switch {
	case expr == "":
		return "", errNoValue
	case stringLiteral().MatchString(expr):
		return unquote(expr), nil
	case plainLiteral().MatchString(expr):
		return expr, nil
	}
	if v, ok := vars[expr]; ok {
		return strconv.Itoa(v), nil
	}
	if m := fString().FindStringSubmatch(expr); m != nil {
		return e.fstring(m[1], vars)
	}
	if e.proc != nil {
		if v, ok, err := e.scriptValue(expr); ok {
			return v, err
		}
	}
	if m := repeatLeft().FindStringSubmatch(expr); m != nil {
		return repeatString(unquote(m[1]), m[2], vars)
	}
	if m := repeatRight().FindStringSubmatch(expr); m != nil {
		return repeatString(unquote(m[2]), m[1], vars)
	}
	if v, ok := intValue(expr, vars); ok {
		return v, nil
	}
	return "", errNoValue
}

// intValue evaluates integer arithmetic (+ - * and parentheses) whose
// names are all loop variables.
func intValue(expr string, vars map[string]int) (string, bool) {
	if !intExpr().MatchString(expr) {
		return "", false
	}
	ok := true
	sub := identifier().ReplaceAllStringFunc(expr, func(name string) string {
		v, found := vars[name]
		if !found {
			ok = false
			return name
		}
		return "(" + strconv.Itoa(v) + ")"
	})
	if !ok {
		return "", false
	}
	return evalInt(sub)
}

// repeatString is s * times, times being integer arithmetic ("" when it
// is not positive, as in Python).
func repeatString(s, times string, vars map[string]int) (string, error) {
	v, ok := intValue(strings.TrimSpace(times), vars)
	if !ok {
		return "", errNoValue
	}
	n, err := strconv.Atoi(v)
	if err != nil || n > 1<<20 {
		return "", errNoValue
	}
	return strings.Repeat(s, max(n, 0)), nil
}

// fstring evaluates an f-string's quoted body: its text as a string
// literal's, each {expression} by value. A conversion or format spec
// ({x!r}, {x:3d}) is not evaluated.
func (e *emulation) fstring(quoted string, vars map[string]int) (string, error) {
	q, body := quoted[:1], quoted[1:len(quoted)-1]
	var out, lit strings.Builder
	flush := func() {
		out.WriteString(unquote(q + lit.String() + q))
		lit.Reset()
	}
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\\' && i+1 < len(body):
			lit.WriteString(body[i : i+2])
			i += 2
		case (c == '{' || c == '}') && i+1 < len(body) && body[i+1] == c:
			lit.WriteByte(c)
			i += 2
		case c == '{':
			end := closingBrace(body, i)
			if end < 0 {
				return "", errNoValue
			}
			ex := body[i+1 : end]
			if hasTopLevel(ex, ":!=") {
				return "", errNoValue
			}
			v, err := e.value(ex, vars)
			if err != nil {
				return "", err
			}
			flush()
			out.WriteString(v)
			i = end + 1
		case c == '}':
			return "", errNoValue
		default:
			lit.WriteByte(c)
			i++
		}
	}
	flush()
	return out.String(), nil
}

// eachOutside calls visit with the index, byte and bracket depth of
// every byte of s from index from on that lies outside a string literal
// (quotes and what they hold are skipped), until visit returns false. An
// opening bracket is visited at the depth outside it, a closing one at the
// depth inside it.
func eachOutside(s string, from int, visit func(i int, c byte, depth int) bool) {
	var quote byte
	depth := 0
	for i := from; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == '\\':
			i++
			continue
		case quote != 0 && c == quote:
			quote = 0
			continue
		case quote != 0:
			continue
		case c == '"' || c == '\'':
			quote = c
			continue
		}
		if !visit(i, c, depth) {
			return
		}
		switch c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		}
	}
}

// closingBrace returns the index of the '}' closing the '{' at open in s
// (quotes and brackets skipped), or -1.
func closingBrace(s string, open int) int {
	at := -1
	eachOutside(s, open+1, func(i int, c byte, depth int) bool {
		if c == '}' && depth == 0 {
			at = i
			return false
		}
		return true
	})
	return at
}

// hasTopLevel reports whether s holds one of chars outside quotes and
// brackets.
func hasTopLevel(s, chars string) bool {
	found := false
	eachOutside(s, 0, func(i int, c byte, depth int) bool {
		found = depth == 0 && strings.IndexByte(chars, c) >= 0
		return !found
	})
	return found
}

// scriptValue evaluates what a script knows of its process: __file__,
// sys.argv, sys.argv[N], sys.argv[1:] and len(sys.argv). ok is false for
// anything else.
func (e *emulation) scriptValue(expr string) (v string, ok bool, err error) {
	argv := e.proc.Argv
	switch expr {
	case "__file__":
		return e.proc.File, true, nil
	case "sys.argv":
		return pyList(argv), true, nil
	case "sys.argv[1:]":
		if len(argv) == 0 {
			return "[]", true, nil
		}
		return pyList(argv[1:]), true, nil
	case "len(sys.argv)":
		return strconv.Itoa(len(argv)), true, nil
	}
	m := argvIndex().FindStringSubmatch(expr)
	if m == nil {
		return "", false, nil
	}
	i, convErr := strconv.Atoi(m[1])
	if i < 0 {
		i += len(argv)
	}
	if convErr != nil || i < 0 || i >= len(argv) {
		return "", true, &pyError{"IndexError", "list index out of range"}
	}
	return argv[i], true, nil
}

// pyList is the repr of a list of strings: ['train.py', '--lr', '0.1'].
func pyList(items []string) string {
	parts := make([]string, len(items))
	for i, s := range items {
		parts[i] = pyRepr(s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// pyRepr is Python's repr of a str: single quotes unless s holds one and
// no double quote; backslashes, the quote and control characters escaped.
func pyRepr(s string) string {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\' || r == rune(q):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatInt(int64(r)|0x100, 16)[1:])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// execPrint runs print(…) with arguments value evaluates (and its end,
// sep, file and flush keywords), and sys.stdout / sys.stderr's write and
// flush; false leaves s to the caller.
func (e *emulation) execPrint(s stmt, vars map[string]int) bool {
	if m := streamCall().FindStringSubmatch(s.text); m != nil {
		if m[2] == "flush" {
			return m[3] == ""
		}
		v, err := e.value(m[3], vars)
		if err != nil || !(stringLiteral().MatchString(m[3]) || fString().MatchString(m[3])) {
			return false
		}
		e.write(m[1] == "stderr", v)
		return true
	}
	m := printStmt().FindStringSubmatch(s.text)
	if m == nil {
		return false
	}
	sep, end, toStderr := " ", "\n", false
	var parts []string
	for _, a := range splitArgs(m[1]) {
		if a == "" && m[1] == "" {
			break
		}
		if k := printKeyword().FindStringSubmatch(a); k != nil {
			val := strings.TrimSpace(k[2])
			switch k[1] {
			case "end", "sep":
				if val == "None" {
					continue
				}
				if !stringLiteral().MatchString(val) {
					return false
				}
				if k[1] == "end" {
					end = unquote(val)
				} else {
					sep = unquote(val)
				}
			case "file":
				switch val {
				case "sys.stderr":
					toStderr = true
				case "sys.stdout":
					toStderr = false
				default:
					return false
				}
			}
			continue
		}
		v, err := e.value(a, vars)
		if pe := (*pyError)(nil); errors.As(err, &pe) {
			e.raise(s, pe.name, pe.value)
			return true
		}
		if err != nil {
			return false
		}
		parts = append(parts, v)
	}
	e.write(toStderr, strings.Join(parts, sep)+end)
	return true
}
