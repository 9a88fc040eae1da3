package config

import "testing"

// A config file with nothing set yet (a document marker and comments, or
// an explicit null) is accepted and leaves every default in place.
func TestEmptyConfigDocumentKeepsDefaults(t *testing.T) {
	for _, src := range []string{"---\n# nothing set yet\n", "null\n", "~\n"} {
		s, err := parseAs(t, "c.yaml", src)
		if err != nil {
			t.Errorf("%q refused: %v", src, err)
			continue
		}
		d := DefaultSettings()
		if s.Theme != d.Theme || s.Profile != d.Profile || s.CallBudget != d.CallBudget || s.AutoRenew != d.AutoRenew {
			t.Errorf("%q: settings %+v, want the defaults", src, s)
		}
	}
}
