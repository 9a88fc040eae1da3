package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"github.com/colabdash/colabdash/api"
)

// ParseSettings parses a config file's bytes. file names it in errors.
// It returns a *ConfigError for a YAML syntax error, an unknown key, a
// duplicate key or a bad value, naming the line and what is accepted;
// nothing is half-applied. Empty input gives the defaults.
func ParseSettings(file string, data []byte, o SettingsOptions) (*Settings, error) {
	s := DefaultSettings()
	s.Source = file
	p := &cfgParser{file: file, s: s, o: o}
	if err := checkYAMLLimits(file, data); err != nil {
		return nil, err
	}
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		line, msg := 0, err.Error()
		var ye interface {
			GetToken() *token.Token
			GetMessage() string
		}
		if errors.As(err, &ye) {
			msg = "YAML syntax: " + ye.GetMessage()
			if tk := ye.GetToken(); tk != nil && tk.Position != nil {
				line = tk.Position.Line
			}
		}
		if l := tabIndented(data, line); l > 0 {
			line, msg = l, "tabs are not allowed for indentation in YAML; use spaces"
		}
		return nil, &ConfigError{File: file, Line: line, Msg: api.OneLine(msg, 200)}
	}
	if len(f.Docs) > 1 {
		return nil, p.errAt(f.Docs[1], "only one YAML document is accepted")
	}
	if len(f.Docs) == 1 && f.Docs[0].Body != nil {
		p.record(p.top(f.Docs[0].Body))
	}
	if len(p.errs) == 0 { // a profile not defined may be one that was bad
		p.record(p.check())
	}
	if len(p.errs) > 0 {
		slices.SortStableFunc(p.errs, func(a, b *ConfigError) int { return a.Line - b.Line })
		first := p.errs[0]
		first.More = p.errs[1:]
		return nil, first
	}
	return s, nil
}

// tabIndented returns the 1-based number of the first line, at or before
// line (any line when line is 0), whose indentation holds a tab, or 0 when
// none does; a YAML syntax error there is the tab's doing.
func tabIndented(data []byte, line int) int {
	for i, l := range strings.Split(string(data), "\n") {
		if line > 0 && i+1 > line {
			break
		}
		indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if strings.Contains(indent, "\t") && strings.TrimSpace(l) != "" {
			return i + 1
		}
	}
	return 0
}

type cfgParser struct {
	file string
	s    *Settings
	o    SettingsOptions
	// errs are the bad lines found so far: a bad entry is recorded and
	// the parse goes on with the next, so that every bad line is said.
	errs []*ConfigError
}

// record adds err (nil: nothing) to the bad lines found.
func (p *cfgParser) record(err error) {
	if err == nil {
		return
	}
	var ce *ConfigError
	if !errors.As(err, &ce) {
		ce = &ConfigError{File: p.file, Msg: err.Error()}
	}
	p.errs = append(p.errs, ce)
}

func (p *cfgParser) errAt(n ast.Node, msg string) *ConfigError {
	return &ConfigError{File: p.file, Line: nodeLine(n), Msg: msg}
}

// nodeLine returns n's line, or 0. go-yaml's DocumentNode.GetToken
// dereferences a nil start token for a document opened by a bare "---"
// (found by FuzzLoadConfig: "0\n---" panicked), so a document falls back
// to its body and any other panic means "line unknown".
func nodeLine(n ast.Node) (line int) {
	defer func() {
		if recover() != nil {
			line = 0
		}
	}()
	if d, ok := n.(*ast.DocumentNode); ok {
		if d == nil || d.Start == nil {
			if d == nil || d.Body == nil {
				return 0
			}
			n = d.Body
		}
	}
	if n == nil {
		return 0
	}
	if tk := n.GetToken(); tk != nil && tk.Position != nil {
		return tk.Position.Line
	}
	return 0
}

type entry struct {
	key   string
	knode ast.Node
	val   ast.Node
}

// entries returns a mapping's key/value pairs in order, rejecting anything
// else; unknown keys (when allowed is non-nil), duplicates and merge keys
// are recorded as bad lines and left out.
func (p *cfgParser) entries(n ast.Node, what string, allowed []string) ([]entry, error) {
	var vals []*ast.MappingValueNode
	switch m := n.(type) {
	case *ast.MappingNode:
		vals = m.Values
	case *ast.MappingValueNode:
		vals = []*ast.MappingValueNode{m}
	case *ast.NullNode:
		return nil, nil
	default:
		hint := ""
		if allowed != nil {
			hint = " with keys " + strings.Join(allowed, ", ")
		}
		return nil, p.errAt(n, what+" must be a mapping"+hint)
	}
	seen := map[string]int{}
	out := make([]entry, 0, len(vals))
	for _, mv := range vals {
		if mv.Key == nil {
			continue
		}
		// A bad key is recorded and left out; the others are read.
		if mv.Key.IsMergeKey() {
			p.record(p.errAt(mv.Key, "merge keys (<<) are not accepted"))
			continue
		}
		k := mv.Key.GetToken().Value
		if allowed != nil && !slices.Contains(allowed, k) {
			msg := fmt.Sprintf("unknown key %q in %s (accepted: %s)", k, what, strings.Join(allowed, ", "))
			p.record(p.errAt(mv.Key, msg))
			continue
		}
		line := mv.Key.GetToken().Position.Line
		if first, dup := seen[k]; dup {
			p.record(p.errAt(mv.Key, fmt.Sprintf("key %q appears twice in %s (first on line %d)", k, what, first)))
			continue
		}
		seen[k] = line
		out = append(out, entry{key: k, knode: mv.Key, val: mv.Value})
	}
	return out, nil
}

// scalar returns a scalar value's text; mappings, lists and aliases are
// errors.
func (p *cfgParser) scalar(n ast.Node, what string) (string, error) {
	switch v := n.(type) {
	case *ast.NullNode:
		return "", nil
	case *ast.StringNode:
		return v.Value, nil
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode, *ast.LiteralNode:
		return strings.TrimSpace(n.String()), nil
	}
	return "", p.errAt(n, what+" must be a single value, not a "+strings.ToLower(n.Type().String()))
}

func (p *cfgParser) mark(path string, n ast.Node) {
	if tk := n.GetToken(); tk != nil && tk.Position != nil {
		p.s.lines[path] = tk.Position.Line
	}
}

func (p *cfgParser) duration(e entry, positive time.Duration) (time.Duration, error) {
	v, err := p.scalar(e.val, e.key)
	if err != nil {
		return 0, err
	}
	d, perr := time.ParseDuration(v)
	if perr != nil {
		return 0, p.errAt(e.val, fmt.Sprintf("%s: %q is not a duration (accepted: Go durations such as 30s, 5m, 1m30s)", e.key, v))
	}
	if d < positive || d <= 0 {
		if positive > 0 {
			return 0, p.errAt(e.val, fmt.Sprintf("%s: %s is too short (accepted: at least %s)", e.key, v, shortDuration(positive)))
		}
		return 0, p.errAt(e.val, fmt.Sprintf("%s: %s must be greater than 0 (e.g. 5m)", e.key, v))
	}
	return d, nil
}

// check validates settings that depend on each other.
func (p *cfgParser) check() error {
	s := p.s
	if _, ok := s.Profiles[s.Profile]; !ok {
		return s.ErrorAt("profile", fmt.Sprintf("profile: %q is not defined (accepted: %s)", s.Profile, strings.Join(s.ProfileNames(), ", ")))
	}
	return nil
}
