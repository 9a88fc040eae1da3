// Package jsonnum decodes the numeric fields of server replies the way
// the reference clients read them: as any JSON number.
//
// A Python or JavaScript server may write an integral value as a float
// (json.dumps gives 13605834752.0 for a float, and 1.36e10 is as valid a
// JSON number as 13600000000). Go's encoding/json refuses either for an
// integer field and with it the whole reply. Every integer field of a
// decoded reply is therefore an Int: it takes any JSON number, rounds it
// to the nearest integer and clamps it to the int64 range. It refuses
// only what is not a number (a string, a bool, an object, an array).
package jsonnum

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// Int is an integer field of a reply: any JSON number, rounded half away
// from zero and clamped to [math.MinInt64, math.MaxInt64]; null leaves it
// unchanged. It encodes as a plain JSON integer.
type Int int64

// UnmarshalJSON sets i from the JSON value b. A non-number is a
// *json.UnmarshalTypeError, so the decoder's error names the field.
func (i *Int) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	n, ok := Parse(b)
	if !ok {
		return &json.UnmarshalTypeError{Value: kindOf(b), Type: reflect.TypeFor[int64]()}
	}
	*i = Int(n)
	return nil
}

// Float is a fraction or measure of a reply: any JSON number, one beyond
// float64's range read as ±Inf (1e400) or 0 (1e-400) instead of failing
// the whole reply; null leaves it unchanged. The caller clamps it to the
// range it means.
type Float float64

// UnmarshalJSON sets f from the JSON value b. A non-number is a
// *json.UnmarshalTypeError, so the decoder's error names the field.
func (f *Float) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if len(b) == 0 || !(b[0] == '-' || b[0] >= '0' && b[0] <= '9') || !json.Valid(b) {
		return &json.UnmarshalTypeError{Value: kindOf(b), Type: reflect.TypeFor[float64]()}
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return &json.UnmarshalTypeError{Value: "number " + string(b), Type: reflect.TypeFor[float64]()}
	}
	*f = Float(v)
	return nil
}

// Parse reads the JSON number b ("13605834752", "13605834752.0",
// "1.36e10", "-3") as an int64: rounded half away from zero, clamped to
// the int64 range. ok is false when b is not a JSON number.
func Parse(b []byte) (n int64, ok bool) {
	if len(b) == 0 || !(b[0] == '-' || b[0] >= '0' && b[0] <= '9') {
		return 0, false
	}
	s := string(b)
	digits := strings.TrimPrefix(s, "-")
	// JSON has no leading zeros, which ParseInt would take.
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && (digits[0] != '0' || len(digits) == 1) {
		return n, true // the common case: a plain integer
	}
	if !json.Valid(b) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, false
	}
	f = math.Round(f)
	switch {
	case f >= math.MaxInt64: // 2^63 is the first float64 above the range
		return math.MaxInt64, true
	case f <= math.MinInt64:
		return math.MinInt64, true
	}
	return int64(f), true
}

// kindOf names the JSON kind of a non-number for the error message.
func kindOf(b []byte) string {
	if len(b) == 0 {
		return "value"
	}
	switch b[0] {
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return "value"
}
