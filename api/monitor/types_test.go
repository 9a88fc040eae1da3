package monitor

import "testing"

// A disk is shown by its label's last component; the VM's own disk
// ("kernel") and a disk without a label by none.
func TestDiskName(t *testing.T) {
	for label, want := range map[string]string{
		"kernel": "", "": "", "/mnt/drive": "drive", "/mnt/drive/": "drive", "data": "data",
	} {
		if got := (Disk{Label: label}).Name(); got != want {
			t.Errorf("Disk{Label: %q}.Name() = %q, want %q", label, got, want)
		}
	}
}
