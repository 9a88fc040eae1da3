package cli

import (
	"encoding/json"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/ui/cli/files"
)

// cp of a local file whose stat size is 0 but which holds bytes (such
// as /proc/self/environ) sends it whole and says how many bytes; it is
// never uploaded empty with exit 0.
func TestCpUploadsAZeroSizeProcFileWhole(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	_, flags := filesEmu(t)
	const p = "/proc/self/environ" // this process's: runCLI runs in it
	want, err := os.ReadFile(p)
	if err != nil || len(want) == 0 {
		t.Fatalf("reading %s: %d bytes, %v", p, len(want), err)
	}
	code, out, errs := runCLI(t, append([]string{"cp", p, "rt-files:/content/environ", "--json"}, flags...)...)
	var sum files.CopySummary
	if code != 0 || json.Unmarshal([]byte(out), &sum) != nil || !sum.OK || sum.Bytes != int64(len(want)) {
		t.Fatalf("cp %s: exit %d, stdout %q, stderr %q; want %d bytes sent", p, code, out, errs, len(want))
	}
	code, out, errs = runCLI(t, append([]string{"ls", "rt-files:/content/environ", "--json"}, flags...)...)
	if code != 0 || !strings.Contains(out, `"size": `+strconv.Itoa(len(want))) {
		t.Fatalf("ls of the upload: exit %d, %q %q; want size %d", code, out, errs, len(want))
	}
}
