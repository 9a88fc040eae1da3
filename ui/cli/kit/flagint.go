package kit

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// NumberError is a numeric flag's refusal of a value that is not a whole
// number: Want says what the flag takes ("a whole number of lines").
// FlagError turns it into the one usage line.
type NumberError struct{ Want string }

func (e *NumberError) Error() string { return "must be " + e.Want }

// intFlag is an integer flag whose refusal says what it takes instead of
// strconv's words (strconv.ParseInt: parsing "abc": invalid syntax).
type intFlag[T int | int64] struct {
	p    *T
	want string
}

func (f intFlag[T]) String() string {
	if f.p == nil {
		return "0"
	}
	return strconv.FormatInt(int64(*f.p), 10)
}

func (f intFlag[T]) Set(s string) error {
	var zero T
	bits := 64
	if _, isInt := any(zero).(int); isInt {
		bits = strconv.IntSize
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, bits)
	if err != nil {
		return &NumberError{Want: f.want}
	}
	*f.p = T(n)
	return nil
}

// Type is "int" for both sizes, as --help shows pflag's own int flags.
func (f intFlag[T]) Type() string { return "int" }

// IntVar defines an int flag with value as its default; want is what it
// takes, for the error a value that is not a whole number gets ("a whole
// number of lines": `--tail must be a whole number of lines, not "abc"`).
// Ranges are the command's to check.
func IntVar(f *pflag.FlagSet, p *int, name string, value int, want, usage string) {
	*p = value
	f.Var(intFlag[int]{p: p, want: want}, name, usage)
}

// Int64Var is IntVar for an int64.
func Int64Var(f *pflag.FlagSet, p *int64, name string, value int64, want, usage string) {
	*p = value
	f.Var(intFlag[int64]{p: p, want: want}, name, usage)
}

// IsNumberFlag reports whether flag was defined by IntVar or Int64Var.
func IsNumberFlag(flag *pflag.Flag) bool {
	switch flag.Value.(type) {
	case intFlag[int], intFlag[int64]:
		return true
	}
	return false
}

// FlagError is a flag mistake of the command line as its one usage line
// (exit 2): a numeric flag's bad value says what the flag takes (`--tail
// must be a whole number of lines, not "abc"`); any other keeps pflag's
// words.
func FlagError(err error) *ExitError {
	var iv *pflag.InvalidValueError
	var ne *NumberError
	if errors.As(err, &iv) && errors.As(err, &ne) {
		return &ExitError{Code: ExitUsage, Msg: fmt.Sprintf("--%s must be %s, not %q", iv.GetFlag().Name, ne.Want, iv.GetValue())}
	}
	return &ExitError{Code: ExitUsage, Msg: err.Error()}
}
