package kit

import (
	"errors"
	"time"

	"github.com/spf13/pflag"
)

// durationFlag is a time.Duration flag that refuses what the flag cannot
// mean: a negative duration always, and zero too when positive is set. The
// refusal is pflag's one usage line: invalid argument "-1s" for
// "--timeout" flag: must not be negative.
type durationFlag struct {
	p        *time.Duration
	positive bool
}

func (d durationFlag) String() string {
	if d.p == nil {
		return "0s"
	}
	return d.p.String()
}

func (d durationFlag) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return errors.New(`not a duration (e.g. 90s, 5m, 1h30m)`)
	}
	switch {
	case v < 0:
		return errors.New("must not be negative")
	case v == 0 && d.positive:
		return errors.New("must be positive")
	}
	*d.p = v
	return nil
}

func (d durationFlag) Type() string { return "duration" }

// DurationVar defines a duration flag that must not be negative
// (positive: nor zero), with value as its default.
func DurationVar(f *pflag.FlagSet, p *time.Duration, name string, value time.Duration, positive bool, usage string) {
	*p = value
	f.Var(durationFlag{p: p, positive: positive}, name, usage)
}
