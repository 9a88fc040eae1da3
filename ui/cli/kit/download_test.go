package kit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --download's RUNTIME_PATH[:LOCAL]: relative under /content, LOCAL the
// current directory by default, a directory when it is one or ends in /.
func TestParseDownload(t *testing.T) {
	dir := t.TempDir()
	for in, want := range map[string]Download{
		"model.pt":                   {Remote: "/content/model.pt", Local: ".", Dir: true},
		"/tmp/x.bin:" + dir:          {Remote: "/tmp/x.bin", Local: dir, Dir: true},
		"out/m.pt:" + dir + "/m2.pt": {Remote: "/content/out/m.pt", Local: dir + "/m2.pt"},
		"out/m.pt:" + dir + "/new/":  {Remote: "/content/out/m.pt", Local: dir + "/new/", Dir: true},
		// ".." is resolved as every verb resolves it, never above /.
		"out/../../etc/x:" + dir: {Remote: "/etc/x", Local: dir, Dir: true},
		"../../../x:" + dir:      {Remote: "/x", Local: dir, Dir: true},
	} {
		want.Arg = in
		if got, err := ParseDownload(in); err != nil || got != want {
			t.Errorf("ParseDownload(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
}

// CheckLocal refuses, before anything starts, a download with nowhere to
// land: a missing directory to copy into, or (without force) a file that
// would be replaced.
func TestDownloadCheckLocal(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "model.pt")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		arg   string
		force bool
		want  string // "" accepted
	}{
		{"out/model.pt:" + dir + "/", false, "model.pt exists and would be replaced; nothing started (--force replaces local files)"},
		{"out/model.pt:" + dir + "/", true, ""},
		{"out/other.pt:" + dir + "/", false, ""},
		{"out/:" + dir + "/results/", true, "no directory " + dir + "/results/ here to copy into; nothing started (create it first: mkdir -p"},
		{"out/m.pt:" + dir + "/nodir/m.pt", true, "no directory " + dir + "/nodir here to copy into"},
		{"out/m.pt:" + dir + "/m2.pt", false, ""},
	} {
		d, err := ParseDownload(c.arg)
		if err != nil {
			t.Fatal(err)
		}
		err = d.CheckLocal(c.force, "nothing started")
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q (force %v): %v, want %q", c.arg, c.force, err, c.want)
		}
	}
}
