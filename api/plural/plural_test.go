package plural

import "testing"

// One of a thing is singular; none and many are plural, regular or given.
func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int
		one  string
		many []string
		want string
	}{
		{1, "runtime", nil, "1 runtime"},
		{0, "runtime", nil, "0 runtimes"},
		{2, "session", nil, "2 sessions"},
		{1, "entry", []string{"entries"}, "1 entry"},
		{3, "entry", []string{"entries"}, "3 entries"},
	} {
		if got := Count(tc.n, tc.one, tc.many...); got != tc.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tc.n, tc.one, got, tc.want)
		}
	}
}
