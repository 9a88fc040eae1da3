package proxy

import (
	"testing"
)

func TestLocalName(t *testing.T) {
	for _, n := range []string{"", ".", "..", "a/b", `a\b`, "a\x00b", "a\tb", "a\nb", "a\x1bb", "a\x7fb", "a\u0085b",
		"a\u202eb", "a\u2066b", "a\xffb"} {
		if LocalName(n) == nil {
			t.Errorf("LocalName(%q) = nil, want an error", n)
		}
	}
	for _, n := range []string{"data.csv", "a b.txt", "100%.txt", "résumé.pdf", "データ.csv", "a #1 ?.txt"} {
		if err := LocalName(n); err != nil {
			t.Errorf("LocalName(%q) = %v, want nil", n, err)
		}
	}
}
