package ops

import (
	"errors"
	"testing"

	"github.com/colabdash/colabdash/api"
)

func TestResolveRuntime(t *testing.T) {
	rts := []api.Runtime{{Name: "runtimes/rt-abc"}, {Name: "runtimes/rt-abd"}, {Name: "runtimes/rt-x"}, {Name: "runtimes/rt-xy"}}
	for _, c := range []struct {
		arg     string
		want    string
		kind    ResolveKind
		matches int
	}{
		{arg: "rt-abc", want: "runtimes/rt-abc"},
		{arg: "runtimes/rt-abd", want: "runtimes/rt-abd"},
		{arg: "  rt-abc ", want: "runtimes/rt-abc"},
		{arg: "rt-ab", kind: ResolveAmbiguous, matches: 2},
		{arg: "rt-x", want: "runtimes/rt-x"}, // an exact id beats being a prefix of rt-xy
		{arg: "rt-xy", want: "runtimes/rt-xy"},
		{arg: "rt-abc1", kind: ResolveMissing},
		{arg: "RT-ABC", kind: ResolveMissing},
		{arg: "", kind: ResolveEmpty},
		{arg: "runtimes/", kind: ResolveEmpty},
	} {
		rt, err := ResolveRuntime(rts, c.arg)
		if c.kind == 0 {
			if err != nil || rt.Name != c.want {
				t.Errorf("ResolveRuntime(%q) = %q, %v; want %q", c.arg, rt.Name, err, c.want)
			}
			continue
		}
		var re *ResolveError
		if !errors.As(err, &re) || re.Kind != c.kind || len(re.Matches) != c.matches || re.Arg != c.arg {
			t.Errorf("ResolveRuntime(%q) = %q, %#v; want kind %d with %d matches", c.arg, rt.Name, err, c.kind, c.matches)
		}
		if rt.Name != "" {
			t.Errorf("ResolveRuntime(%q) failed but returned %q", c.arg, rt.Name)
		}
	}
	_, err := ResolveRuntime(rts, "rt-ab")
	var re *ResolveError
	errors.As(err, &re)
	if re.Matches[0].Name != "runtimes/rt-abc" || re.Matches[1].Name != "runtimes/rt-abd" {
		t.Errorf("ambiguous matches %v, want rt-abc and rt-abd in listing order", re.Matches)
	}
}

func TestResolveErrorText(t *testing.T) {
	for kind, want := range map[ResolveKind]string{
		ResolveEmpty:     "empty runtime argument",
		ResolveAmbiguous: "runtime argument rt matches several runtimes",
		ResolveMissing:   "no runtime rt",
	} {
		if got := (&ResolveError{Arg: "rt", Kind: kind}).Error(); got != want {
			t.Errorf("kind %d reads %q, want %q", kind, got, want)
		}
	}
}

func TestLowerCaseMatch(t *testing.T) {
	rts := []api.Runtime{{Name: "runtimes/rt-abc"}, {Name: "runtimes/rt-abd"}}
	if rt, ok := LowerCaseMatch(rts, "runtimes/RT-ABC"); !ok || rt.Name != "runtimes/rt-abc" {
		t.Errorf("LowerCaseMatch(RT-ABC) = %q, %v; want rt-abc", rt.Name, ok)
	}
	if _, ok := LowerCaseMatch(rts, "rt-abc"); ok {
		t.Error("a lower-case argument got a lower-case hint")
	}
	if _, ok := LowerCaseMatch(rts, "RT-AB"); ok {
		t.Error("an ambiguous lower case got a hint")
	}
	if _, ok := LowerCaseMatch(rts, "RT-ZZ"); ok {
		t.Error("a lower case that names nothing got a hint")
	}
}
