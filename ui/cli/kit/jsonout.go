package kit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/itchyny/gojq"
	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/termtext"
)

// Envelope is what every --json document starts with: OK says whether
// the command succeeded; Error, present only on failure, says why.
type Envelope struct {
	OK    bool       `json:"ok"`
	Error *ErrorInfo `json:"error,omitempty"`
}

// ErrorInfo is the "error" of a failed command's JSON document: Code is
// the stable word of its exit code (CodeWord: "usage", "not_found", …),
// Message the line stderr shows (redacted).
type ErrorInfo struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Fail is the envelope of a failure with exit code code and message msg
// (redacted by the caller).
func Fail(code int, msg string) Envelope {
	return Envelope{Error: &ErrorInfo{Code: CodeWord(code), Message: msg}}
}

// Failure is the envelope of err (an *ExitError keeps its code and
// message; any other error is a failure with its text), msg redacted
// with red.
func Failure(err error, red *api.Redactor) Envelope {
	code, msg := ExitFailure, err.Error()
	var ee *ExitError
	if errors.As(err, &ee) {
		code, msg = ee.Code, ee.Msg
	}
	if msg == "" {
		msg = CodeWord(code)
	}
	return Fail(code, red.Redact(msg))
}

// JSONState is the --json and --jq of one run of the program, shared by
// its Streams: whether a JSON document was asked for, the compiled --jq
// filter, and whether a document was printed (the failure envelope is
// printed only when none was).
type JSONState struct {
	On      bool       // --json or --jq was given
	Jq      *gojq.Code // the --jq filter; nil without one
	JqExpr  string     // the --jq expression as given
	JqGiven bool       // --jq was given, its expression compiled (Jq) or not
	Written bool       // a document (or its --jq output) was printed
}

// JSON returns s's JSON state, made on first use.
func (s *Streams) JSON() *JSONState {
	if s.json == nil {
		s.json = &JSONState{}
	}
	return s.json
}

// jqFlag is --jq EXPR: the expression is compiled as the flag is parsed,
// so a bad one is a usage error before the command does anything.
type jqFlag struct {
	st     *JSONState
	asJSON *bool
}

// String is the expression as given.
func (f *jqFlag) String() string { return f.st.JqExpr }

// Type is what --help shows after --jq.
func (f *jqFlag) Type() string { return "EXPR" }

// Set compiles expr; a parse or compile error is one line, and leaves
// no filter: with --jq, stdout holds only the filter's results, so a
// failure then prints nothing there (WriteFailure), as gh's --jq.
func (f *jqFlag) Set(expr string) error {
	f.st.JqGiven, f.st.Jq = true, nil
	q, err := gojq.Parse(expr)
	if err == nil {
		var code *gojq.Code
		if code, err = gojq.Compile(q); err == nil {
			f.st.Jq, f.st.JqExpr, f.st.On = code, expr, true
			*f.asJSON = true
			return nil
		}
	}
	return errors.New(api.OneLine(err.Error(), 200))
}

// JSONFlags adds --json (bound to v.AsJSON, its help what) and --jq EXPR
// to cmd. --jq implies --json and filters the document with a jq
// expression (github.com/itchyny/gojq), as gh's --jq does.
func (v *Verb) JSONFlags(cmd *cobra.Command, what string) {
	st := v.S.JSON()
	f := cmd.Flags()
	f.Var(&jsonFlag{st: st, asJSON: &v.AsJSON}, "json", what)
	f.Lookup("json").NoOptDefVal = "true"
	f.Var(&jqFlag{st: st, asJSON: &v.AsJSON}, "jq", "filter the --json document with a jq expression and print the result (strings bare, one per line); implies --json")
}

// jsonFlag is --json: a bool flag that also records in the run's JSON
// state that a document was asked for.
type jsonFlag struct {
	st     *JSONState
	asJSON *bool
}

// String is "true" or "false".
func (f *jsonFlag) String() string { return fmt.Sprint(*f.asJSON) }

// Type is "bool", so --help shows --json without a value.
func (f *jsonFlag) Type() string { return "bool" }

// IsBoolFlag lets --json stand without a value.
func (f *jsonFlag) IsBoolFlag() bool { return true }

// Set takes true or false (--json=false with --jq still prints JSON).
func (f *jsonFlag) Set(s string) error {
	switch strings.ToLower(s) {
	case "true", "1", "t":
		*f.asJSON, f.st.On = true, true
	case "false", "0", "f":
		*f.asJSON = f.st.Jq != nil
		f.st.On = f.st.Jq != nil
	default:
		return fmt.Errorf("--json takes no value (or true/false), not %q", s)
	}
	return nil
}

// EncodeJSON is doc as every --json document is printed: indented JSON
// and a newline, C1 and bidirectional controls inside strings written as
// \u escapes. For a verb that writes its document in pieces as it goes
// (WriteJSONPiece), the pieces around what it streams.
func EncodeJSON(doc any) ([]byte, error) { return encodeJSON(doc) }

// WriteJSONPiece writes b, a piece of a JSON document the verb streams
// (ls --json), on stdout through the redactor, and marks the document
// printed: a failure then ends the document the verb began instead of
// printing an envelope of its own. b is passed through termtext.JSON; a
// caller cuts its pieces between values, never inside a string (each
// piece is redacted whole). Only without --jq: a filter needs the whole
// document (WriteJSON).
func (v *Verb) WriteJSONPiece(b []byte) error {
	v.S.JSON().Written, v.WroteJSON = true, true
	if _, err := v.S.Out.Write(termtext.JSON(b)); err != nil {
		return &ExitError{Code: ExitFailure, Msg: "writing JSON: " + err.Error()}
	}
	return nil
}

// encodeJSON is doc as indented JSON and a newline, C1 and bidirectional
// controls inside strings written as \u escapes (termtext.JSON).
func encodeJSON(doc any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return termtext.JSON(buf.Bytes()), nil
}

// writeDoc prints doc on w: as indented JSON, or through st's --jq filter
// (each result on a line of its own: a string bare, sanitized on a
// terminal; anything else as JSON, indented on a terminal and compact
// otherwise, as gh does). A --jq runtime error is a usage error. With a
// redactor, the filter runs on the document with its strings redacted
// (redactValue); red is nil only for a document revealed on purpose.
// The filter stops when ctx ends (a signal) and at its limits (runJq).
func writeDoc(ctx context.Context, w io.Writer, tty bool, st *JSONState, doc any, red *api.Redactor) error {
	b, err := encodeJSON(doc)
	if err != nil {
		return &ExitError{Code: ExitFailure, Msg: "encoding JSON: " + err.Error()}
	}
	st.Written = true
	if st.Jq == nil {
		if _, err := w.Write(b); err != nil {
			return &ExitError{Code: ExitFailure, Msg: "writing JSON: " + err.Error()}
		}
		return nil
	}
	var in any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&in); err != nil {
		return &ExitError{Code: ExitFailure, Msg: "--jq: " + err.Error()}
	}
	in = gojqNumbers(in)
	if red != nil {
		in = redactValue(in, red)
	}
	return runJq(ctx, w, tty, st, in)
}

// gojqNumbers turns the json.Numbers of a decoded document into the int
// or float64 gojq computes with (an integer stays exact).
func gojqNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return int(i)
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = gojqNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = gojqNumbers(e)
		}
	}
	return v
}

// WantsJSON reports whether the command that failed (cmd, the one cobra
// ran or tried to run) was asked for JSON: its --json or --jq was parsed,
// or, when its flags did not parse, args give --json or --jq before any
// "--".
func WantsJSON(s *Streams, cmd *cobra.Command, args []string) bool {
	if s.json != nil && s.json.On {
		return true
	}
	if cmd == nil || cmd.Flags().Lookup("json") == nil && cmd.HasParent() {
		return false
	}
	end := slices.Index(args, "--")
	if end < 0 {
		end = len(args)
	}
	for i, a := range args[:end] {
		expr, jq := strings.CutPrefix(a, "--jq=")
		if a == "--jq" && i+1 < end {
			expr, jq = args[i+1], true
		}
		switch {
		case a == "--jq" && !jq: // no expression: no filter, so no results
			s.JSON().JqGiven = true
		case jq && !s.JSON().JqGiven:
			// The flags stopped parsing before --jq (an unknown flag
			// ahead of it): its filter still applies to the failure.
			_ = (&jqFlag{st: s.JSON(), asJSON: new(bool)}).Set(expr)
		}
		if a == "--json" || a == "--json=true" || a == "--jq" || jq {
			return true
		}
	}
	return false
}

// WriteFailure prints the failure envelope of err on s.Out, through the
// --jq filter when one was parsed, unless a document was printed
// already; with a --jq expression that did not compile it prints
// nothing. The caller prints the stderr line.
func WriteFailure(s *Streams, err error, red *api.Redactor) {
	st := s.JSON()
	if st.Written || st.JqGiven && st.Jq == nil {
		return // printed already, or --jq without a filter that compiled: no results
	}
	if werr := writeDoc(s.ctx, s.Out, s.OutTTY, st, Failure(err, red), s.red); werr != nil && st.Jq != nil {
		// The filter failed on the envelope itself: print it plain.
		st.Jq = nil
		_ = writeDoc(s.ctx, s.Out, s.OutTTY, st, Failure(err, red), s.red)
	}
}

// RuntimeName is how every --json document writes a runtime: its full
// resource name, "runtimes/rt-abc" (as status, create, url, top, delete
// and Colab itself write it), never the bare id.
type RuntimeName string

// NameOf is the RuntimeName of a runtime given by id ("rt-abc") or name
// ("runtimes/rt-abc"); "" stays "" (not resolved yet).
func NameOf(idOrName string) RuntimeName {
	if idOrName == "" || strings.HasPrefix(idOrName, "runtimes/") {
		return RuntimeName(idOrName)
	}
	return RuntimeName("runtimes/" + idOrName)
}
