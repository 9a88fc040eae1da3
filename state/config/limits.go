package config

import (
	"bytes"
	"fmt"
)

// Limits checked before the YAML parser sees a config file. The parser's
// cost explodes with nesting (20,000 nested brackets took 10 s and 660 MB);
// a real config file is a few levels deep and a few hundred values long.
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
	s := &yamlScan{file: file}
	for len(data) > 0 {
		var raw []byte
		raw, data, _ = bytes.Cut(data, []byte{'\n'})
		if err := s.scanLine(raw); err != nil {
			return err
		}
	}
	return nil
}

// yamlScan is checkYAMLLimits' state between lines.
type yamlScan struct {
	file    string
	indents []int // indentation widths of the open block levels
	flow    int   // open [ and { on the current path
	nodes   int   // values counted so far
	line    int   // 1-based number of the line being scanned
	quote   byte  // the open quote inside a flow collection or scalar, 0 for none
}

// scanLine counts one line (without its newline): a value unless it is
// blank or a comment outside any flow collection or quote, the block
// level its indentation opens or closes, and what its bytes open and
// close (scanByte). It returns the error of the first limit passed.
func (s *yamlScan) scanLine(raw []byte) error {
	s.line++
	indent := 0
	for indent < len(raw) && (raw[indent] == ' ' || raw[indent] == '\t') {
		indent++
	}
	rest := raw[indent:]
	if s.quote == 0 && s.flow == 0 {
		if len(rest) == 0 || rest[0] == '#' {
			return nil // blank or comment line
		}
		s.blockLevel(indent)
	}
	if err := s.addNode(); err != nil {
		return err
	}
	for i := 0; i < len(rest); i++ {
		var err error
		if i, err = s.scanByte(rest, i); err != nil {
			return err
		}
	}
	if s.depth() > MaxYAMLDepth {
		return s.tooDeep()
	}
	return nil
}

// blockLevel closes the block levels indented deeper than indent and
// opens one at indent when it is deeper than the innermost left open.
func (s *yamlScan) blockLevel(indent int) {
	for len(s.indents) > 0 && s.indents[len(s.indents)-1] > indent {
		s.indents = s.indents[:len(s.indents)-1]
	}
	if len(s.indents) == 0 || s.indents[len(s.indents)-1] < indent {
		s.indents = append(s.indents, indent)
	}
}

// scanByte reads rest[i], the byte at index i of a line after its
// indentation, and returns the index of the last byte it consumed (an
// escape or a doubled quote takes two; a comment the rest of the line).
func (s *yamlScan) scanByte(rest []byte, i int) (int, error) {
	c := rest[i]
	switch {
	case s.quote == '"':
		return s.inDoubleQuoted(rest, i), nil
	case s.quote == '\'':
		return s.inSingleQuoted(rest, i), nil
	case (c == '"' || c == '\'') && scalarStart(rest[:i]):
		s.quote = c
	case c == '#' && (i == 0 || rest[i-1] == ' ' || rest[i-1] == '\t'):
		return len(rest), nil // a comment runs to the end of the line
	case c == '[' || c == '{':
		s.flow++
		if s.depth() > MaxYAMLDepth {
			return i, s.tooDeep()
		}
	case (c == ']' || c == '}') && s.flow > 0:
		s.flow--
	case c == ',' && s.flow > 0:
		return i, s.addNode()
	}
	return i, nil
}

// inDoubleQuoted reads rest[i] inside a "quoted" scalar, where a
// backslash escapes the next byte, and returns the last index consumed.
func (s *yamlScan) inDoubleQuoted(rest []byte, i int) int {
	switch rest[i] {
	case '\\':
		return i + 1
	case '"':
		s.quote = 0
	}
	return i
}

// inSingleQuoted reads rest[i] inside a 'quoted' scalar, where a doubled
// quote stands for one, and returns the last index consumed.
func (s *yamlScan) inSingleQuoted(rest []byte, i int) int {
	if rest[i] != '\'' {
		return i
	}
	if i+1 < len(rest) && rest[i+1] == '\'' {
		return i + 1 // '' is a quote inside the string
	}
	s.quote = 0
	return i
}

// depth is the nesting so far: open block levels plus open flow brackets.
func (s *yamlScan) depth() int { return len(s.indents) + s.flow }

// addNode counts one more value and fails past MaxYAMLNodes.
func (s *yamlScan) addNode() error {
	s.nodes++
	if s.nodes > MaxYAMLNodes {
		return s.fail(fmt.Sprintf("more than %d YAML values; a config file needs only a few hundred", MaxYAMLNodes))
	}
	return nil
}

// tooDeep is the error of a file nested deeper than MaxYAMLDepth.
func (s *yamlScan) tooDeep() error {
	return s.fail(fmt.Sprintf("YAML nested more than %d levels deep; a config file needs only a few", MaxYAMLDepth))
}

// fail is a *ConfigError at the line being scanned.
func (s *yamlScan) fail(msg string) error {
	return &ConfigError{File: s.file, Line: s.line, Msg: msg}
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
