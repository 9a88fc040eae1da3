package config

import (
	"bytes"
	"fmt"
)

// Limits checked before the YAML parser sees a config file. The parser's
// cost explodes with nesting (20,000 nested brackets took 10 s and 660 MB,
// field case S3); a real config file is a few levels deep and a few
// hundred values long.
const (
	// MaxYAMLDepth is the deepest nesting accepted: indentation levels plus
	// open flow brackets ([ and {).
	MaxYAMLDepth = 64
	// MaxYAMLNodes is the most values accepted: lines with content plus
	// the items of flow collections.
	MaxYAMLNodes = 10000
)

// checkYAMLLimits scans data once, in linear time and constant memory
// (besides the indentation stack, which the depth limit bounds), and
// returns a *ConfigError when it is nested deeper than MaxYAMLDepth or
// holds more than MaxYAMLNodes values. It is deliberately conservative: it
// does not parse YAML, it counts block indentation, flow brackets outside
// quotes and comments, lines, and commas inside brackets, so it may count
// a bracket inside a plain scalar; no legitimate config comes near the
// limits.
func checkYAMLLimits(file string, data []byte) error {
	var (
		indents []int // indentation widths of the open block levels
		flow    int   // open [ and { on the current path
		nodes   int
		line    int
	)
	fail := func(msg string) error { return &ConfigError{File: file, Line: line, Msg: msg} }
	deep := func() error {
		return fail(fmt.Sprintf("YAML nested more than %d levels deep; a config file needs only a few", MaxYAMLDepth))
	}
	many := func() error {
		return fail(fmt.Sprintf("more than %d YAML values; a config file needs only a few hundred", MaxYAMLNodes))
	}
	var quote byte // the open quote inside a flow collection or scalar, 0 for none
	for len(data) > 0 {
		line++
		raw := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			raw, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		indent := 0
		for indent < len(raw) && (raw[indent] == ' ' || raw[indent] == '\t') {
			indent++
		}
		rest := raw[indent:]
		if quote == 0 && flow == 0 && (len(rest) == 0 || rest[0] == '#') {
			continue // blank or comment line
		}
		nodes++
		if nodes > MaxYAMLNodes {
			return many()
		}
		if quote == 0 && flow == 0 {
			for len(indents) > 0 && indents[len(indents)-1] > indent {
				indents = indents[:len(indents)-1]
			}
			if len(indents) == 0 || indents[len(indents)-1] < indent {
				indents = append(indents, indent)
			}
		}
		for i := 0; i < len(rest); i++ {
			c := rest[i]
			switch {
			case quote == '"':
				if c == '\\' {
					i++
				} else if c == '"' {
					quote = 0
				}
			case quote == '\'':
				if c == '\'' {
					if i+1 < len(rest) && rest[i+1] == '\'' {
						i++ // '' is a quote inside the string
					} else {
						quote = 0
					}
				}
			case (c == '"' || c == '\'') && scalarStart(rest[:i]):
				quote = c
			case c == '#' && (i == 0 || rest[i-1] == ' ' || rest[i-1] == '\t'):
				i = len(rest) // a comment runs to the end of the line
			case c == '[' || c == '{':
				flow++
				if len(indents)+flow > MaxYAMLDepth {
					return deep()
				}
			case (c == ']' || c == '}') && flow > 0:
				flow--
			case c == ',' && flow > 0:
				nodes++
				if nodes > MaxYAMLNodes {
					return many()
				}
			}
		}
		if len(indents)+flow > MaxYAMLDepth {
			return deep()
		}
	}
	return nil
}

// scalarStart reports whether a scalar may begin after before (the line so
// far, indentation removed): at the start, or after one of - ? : [ { , and
// blanks. Only there does a quote open a quoted scalar; elsewhere (don't)
// it is part of a plain scalar.
func scalarStart(before []byte) bool {
	before = bytes.TrimRight(before, " \t")
	if len(before) == 0 {
		return true
	}
	return bytes.IndexByte([]byte("-?:[{,"), before[len(before)-1]) >= 0
}
