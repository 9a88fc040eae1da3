package console

import "strings"

// completeStatement reports whether Python code is ready to run on enter:
// brackets and triple-quoted strings are closed, the last line does not
// end in ":" or "\", and a compound statement (a line ending in ":") has
// been closed with an empty line, as in Python's interactive prompt.
func completeStatement(code string) bool {
	depth, inStr := 0, ""
	for i := 0; i < len(code); i++ {
		c := code[i]
		switch {
		case inStr != "":
			if c == '\\' {
				i++
			} else if strings.HasPrefix(code[i:], inStr) {
				i += len(inStr) - 1
				inStr = ""
			} else if c == '\n' && len(inStr) == 1 {
				inStr = "" // an unclosed one-line string: Python will say so
			}
		case c == '#':
			for i < len(code) && code[i] != '\n' {
				i++
			}
		case strings.HasPrefix(code[i:], `"""`), strings.HasPrefix(code[i:], `'''`):
			inStr = code[i : i+3]
			i += 2
		case c == '"' || c == '\'':
			inStr = string(c)
		case strings.IndexByte("([{", c) >= 0:
			depth++
		case strings.IndexByte(")]}", c) >= 0:
			depth--
		}
	}
	if depth > 0 || len(inStr) == 3 {
		return false
	}
	lines := strings.Split(code, "\n")
	last := strings.TrimRight(lines[len(lines)-1], " \t")
	if strings.HasSuffix(last, ":") || strings.HasSuffix(last, "\\") {
		return false
	}
	if strings.TrimSpace(last) == "" {
		return true
	}
	for _, ln := range lines[:len(lines)-1] {
		if strings.HasSuffix(strings.TrimRight(ln, " \t"), ":") {
			return false // inside a block: an empty line ends it
		}
	}
	return true
}
