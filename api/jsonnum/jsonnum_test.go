package jsonnum

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

// A float written for an integer (Python's json.dumps of a float), an
// exponent form and a fraction are all read as the nearest integer.
func TestIntTakesAnyJSONNumber(t *testing.T) {
	for in, want := range map[string]int64{
		`13605834752`:          13605834752,
		`13605834752.0`:        13605834752,
		`1.36e10`:              13600000000,
		`1.36E+10`:             13600000000,
		`-3.0`:                 -3,
		`2.5`:                  3,
		`-2.5`:                 -3,
		`0.4`:                  0,
		`1e300`:                math.MaxInt64,
		`-1e300`:               math.MinInt64,
		`9223372036854775807`:  math.MaxInt64,
		`9223372036854775808`:  math.MaxInt64,
		`-9223372036854775809`: math.MinInt64,
	} {
		var v struct {
			N Int `json:"n"`
		}
		if err := json.Unmarshal([]byte(`{"n":`+in+`}`), &v); err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if int64(v.N) != want {
			t.Errorf("%s = %d, want %d", in, v.N, want)
		}
	}
}

// Only a non-number is refused, with an error that names the field; null
// leaves the value as it was.
func TestIntRefusesOnlyNonNumbers(t *testing.T) {
	for _, in := range []string{`"12"`, `true`, `{}`, `[1]`} {
		var v struct {
			N Int `json:"totalBytes"`
		}
		err := json.Unmarshal([]byte(`{"totalBytes":`+in+`}`), &v)
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) || !strings.Contains(err.Error(), "totalBytes") {
			t.Errorf("%s: err = %v, want a type error naming totalBytes", in, err)
		}
	}
	v := struct {
		N Int `json:"n"`
	}{N: 7}
	if err := json.Unmarshal([]byte(`{"n":null}`), &v); err != nil || v.N != 7 {
		t.Errorf("null: %d, %v; want 7 kept", v.N, err)
	}
	if b, _ := json.Marshal(v); string(b) != `{"n":7}` {
		t.Errorf("encodes as %s", b)
	}
}

func TestParseRefusesNonNumbers(t *testing.T) {
	for _, in := range []string{``, `"1"`, `1x`, `+1`, `.5`, `01`, `-01`, `-`, `NaN`, `Infinity`} {
		if n, ok := Parse([]byte(in)); ok {
			t.Errorf("Parse(%q) = %d, true; want refused", in, n)
		}
	}
}

// A Float takes any JSON number, one past float64's range as its bound
// (±Inf, or 0 for one too small), and refuses only a non-number.
func TestFloatTakesAnyJSONNumber(t *testing.T) {
	for in, want := range map[string]float64{"0.5": 0.5, "1": 1, "-2e0": -2, "1e400": math.Inf(1), "-1e400": math.Inf(-1), "1e-400": 0} {
		var f Float
		if err := json.Unmarshal([]byte(in), &f); err != nil || float64(f) != want {
			t.Errorf("%s: %v, %v; want %v", in, f, err, want)
		}
	}
	for _, in := range []string{`"0.5"`, "true", "{}", "[]", "01", "1e", "NaN"} {
		var f Float
		if err := json.Unmarshal([]byte(in), &f); err == nil {
			t.Errorf("%s: no error", in)
		}
	}
	f := Float(3)
	if err := json.Unmarshal([]byte("null"), &f); err != nil || f != 3 {
		t.Errorf("null: %v, %v; want it unchanged", f, err)
	}
}
