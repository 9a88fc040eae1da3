package client

import (
	"encoding/json"
	"sort"
	"strings"
	"unicode"
)

// toolSchema is the part of a tool's inputSchema the client reads.
type toolSchema struct {
	Properties map[string]*toolSchema `json:"properties"`
	Required   []string               `json:"required"`
}

func parseSchema(v any) *toolSchema {
	s := &toolSchema{}
	if v == nil {
		return s
	}
	b, err := json.Marshal(v)
	if err == nil {
		_ = json.Unmarshal(b, s)
	}
	return s
}

func (s *toolSchema) names() []string {
	if s == nil {
		return nil
	}
	out := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// key returns the first of the candidate property names the schema has.
// When the schema lists no properties at all (unknown shape) it returns the
// first candidate; when it lists others but none of these, "".
func (s *toolSchema) key(candidates ...string) string {
	if s == nil || len(s.Properties) == 0 {
		return candidates[0]
	}
	for _, k := range candidates {
		if _, ok := s.Properties[k]; ok {
			return k
		}
	}
	return ""
}

// child returns the schema of property name (an empty schema if absent).
func (s *toolSchema) child(name string) *toolSchema {
	if s == nil || s.Properties[name] == nil {
		return &toolSchema{}
	}
	return s.Properties[name]
}

func (s *toolSchema) requires(name string) bool {
	if s == nil {
		return false
	}
	for _, r := range s.Required {
		if r == name {
			return true
		}
	}
	return false
}

// snake turns a lowerCamelCase name into snake_case ("sessionId" →
// "session_id"), the legacy spelling some schemas use.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// put sets v under the schema's spelling of name (camelCase, else its
// snake_case twin, else alt names). A property the live schema does not
// have is left out, unless required is set (then the camelCase name is
// used: the call cannot work without it).
func put(m map[string]any, s *toolSchema, required bool, v any, name string, alt ...string) {
	cands := append([]string{name, snake(name)}, alt...)
	k := s.key(cands...)
	if k == "" {
		if !required {
			return
		}
		k = name
	}
	m[k] = v
}
