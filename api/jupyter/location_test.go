package jupyter

import (
	"os"
	"strings"
	"testing"
)

// EscapePath and ParseLocation.
func TestParseLocation(t *testing.T) {
	dir := t.TempDir()
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(dir)
	os.WriteFile("backup-12:30.tar", []byte("x"), 0o644)
	for _, tc := range []struct {
		arg, runtime, path string
		dirFlag            bool
	}{
		{"backup-12:30.tar", "", "backup-12:30.tar", false},
		{"./x:y", "", "./x:y", false},
		{"C:\\data\\x.csv", "", "C:\\data\\x.csv", false},
		{"c:/data/x.csv", "", "c:/data/x.csv", false},
		// Drive paths at the ends of the alphabet and a bare drive are
		// local; a one-letter runtime with a relative path is not.
		{"a:/x.csv", "", "a:/x.csv", false},
		{"z:\\x.csv", "", "z:\\x.csv", false},
		{"c:", "", "c:", false},
		{"c:x.csv", "c", "content/x.csv", false},
		{"rt-abc:/content/data.csv", "rt-abc", "content/data.csv", false},
		// A relative PATH is relative to /content, as "rt-abc:" alone is
		// /content: "rt-abc:sample_data" is /content/sample_data, and
		// "content/x" is /content/content/x.
		{"rt-abc:sample_data", "rt-abc", "content/sample_data", false},
		{"rt-abc:data.csv", "rt-abc", "content/data.csv", false},
		{"rt-abc:sub/", "rt-abc", "content/sub", true},
		{"rt-abc:content/data.csv", "rt-abc", "content/content/data.csv", false},
		{"rt-abc:.", "rt-abc", "content", true},
		{"rt-abc:..", "rt-abc", "", true},
		{"rt-abc:../../../..", "rt-abc", "", true},
		{"runtimes/rt-abc:/content/", "rt-abc", "content", true},
		{"rt-abc:", "rt-abc", "content", true},
		// "/" is the runtime's root (Colab's Jupyter root), not /content:
		// the same tree "/etc" is in.
		{"rt-abc:/", "rt-abc", "", true},
		{"rt-abc://", "rt-abc", "", true},
		{"rt-abc:/etc", "rt-abc", "etc", false},
		// "." and ".." are resolved here, never above the root, so every
		// check and output sees the path the server acts on.
		{"rt-abc:/content/../data.csv", "rt-abc", "data.csv", false},
		{"rt-abc:/content/sample_data/../p2", "rt-abc", "content/p2", false},
		{"rt-abc:/content/../..", "rt-abc", "", true},
		{"rt-abc:../../etc/x", "rt-abc", "etc/x", false},
		{"rt-abc:/content/sub/..", "rt-abc", "content", true},
		{"rt-abc:/content/./x/.", "rt-abc", "content/x", true},
		{"Upper:thing", "", "Upper:thing", false},
		{"plain.txt", "", "plain.txt", false},
	} {
		l, err := ParseLocation(tc.arg, false)
		if err != nil || l.Runtime != tc.runtime || l.Path != tc.path || l.Dir != tc.dirFlag {
			t.Errorf("ParseLocation(%q) = %+v, %v; want runtime %q path %q dir %v", tc.arg, l, err, tc.runtime, tc.path, tc.dirFlag)
		}
	}
	if _, err := ParseLocation("plain.txt", true); err == nil {
		t.Error("a local path accepted where RUNTIME:PATH is required")
	}
	// Where only a runtime can be meant, RUNTIME is left to the caller to
	// resolve, valid id or not (a prefix "rt-", a mistyped "RT-C").
	for arg, rt := range map[string]string{"rt-:/content": "rt-", "RT-C:/x": "RT-C", "runtimes/rt-a:": "rt-a"} {
		if l, err := ParseLocation(arg, true); err != nil || l.Runtime != rt {
			t.Errorf("ParseLocation(%q, true) = %+v, %v; want runtime %q", arg, l, err, rt)
		}
	}
	if _, err := ParseLocation(":/x", true); err == nil || !strings.Contains(err.Error(), "no RUNTIME before the colon") {
		t.Errorf("an empty RUNTIME: %v, want it named as missing", err)
	}
	if got := EscapePath("/content/a #1 ?.txt"); got != "content/a%20%231%20%3F.txt" {
		t.Errorf("EscapePath = %q", got)
	}
	if got := EscapePath("content/100%.txt"); got != "content/100%25.txt" {
		t.Errorf("EscapePath = %q", got)
	}
}
