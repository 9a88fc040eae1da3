package state

import "testing"

// A transfer's size and rate read in decimal units, one decimal past kB.
func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 999: "999 B", 1000: "1.0 kB", 1_000_000: "1.0 MB", 1_250_000: "1.2 MB", 1_000_000_000: "1.0 GB",
		125_829_121: "125.8 MB", 3_000_000_000: "3.0 GB", 7_000_000_000_000_000: "7.0 PB", 7_000_000_000_000_000_000: "7000.0 PB",
	} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
