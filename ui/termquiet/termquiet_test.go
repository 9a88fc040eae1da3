package termquiet

import (
	"os"
	"testing"
)

// This test binary does not import package theme, so nothing has settled:
// TERM still says "dumb" until Settle puts the original back, once.
func TestSettlePutsTERMBack(t *testing.T) {
	if got := os.Getenv("TERM"); got != hushedTERM {
		t.Fatalf("TERM during the hush: %q, want %q", got, hushedTERM)
	}
	Settle()
	got, ok := os.LookupEnv("TERM")
	if got != savedTERM || ok != hadTERM {
		t.Fatalf("after Settle TERM is %q (set %v), want %q (set %v)", got, ok, savedTERM, hadTERM)
	}
	os.Setenv("TERM", "xterm-test")
	Settle() // a second call changes nothing
	if os.Getenv("TERM") != "xterm-test" {
		t.Fatal("a second Settle touched TERM")
	}
	if hadTERM {
		os.Setenv("TERM", savedTERM)
	} else {
		os.Unsetenv("TERM")
	}
}
