package pane

import (
	"strings"
	"testing"
)

// The trash hint offers the purge command with the runtime id only when
// the id passes the paste rule.
func TestPurgeHintOnlyWithAPastableID(t *testing.T) {
	if got := PurgeHint("rt-abc"); got != "colabdash rm --purge rt-abc" {
		t.Errorf("plain id: %q", got)
	}
	for _, id := range []string{"rt;touch${IFS}pwned", "RT-ABC", "$(id)", ""} {
		if got := PurgeHint(id); strings.Contains(got, id) && id != "" || !strings.Contains(got, "with this runtime") {
			t.Errorf("%q: %q", id, got)
		}
	}
}
