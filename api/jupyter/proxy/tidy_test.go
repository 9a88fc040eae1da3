package proxy

import "testing"

// A Jupyter error message after "OP RUNTIME:/PATH: KIND" neither repeats
// KIND's words nor names the path relative (seen in use: "permission
// denied: Permission denied: content/many/x is read-only"); other paths
// and words that only start like the path are left as they are.
func TestTidyMessage(t *testing.T) {
	for _, tc := range []struct{ path, msg, want string }{
		{"content/many/x", "Permission denied: content/many/x is read-only", "/content/many/x is read-only"},
		{"/content/x", "Permission denied: content/x", ""},
		{"content/x", "permission denied: /content/x", ""},
		{"content/x", "cannot write 'content/x': quota", "cannot write '/content/x': quota"},
		{"content/x", "content/xy and /content/x and content/x/y", "content/xy and /content/x and content/x/y"},
		{"content/x", "disk full", "disk full"},
		{"", "Permission denied: ", ""},
	} {
		if got := tidyMessage(ErrPermission, tc.path, tc.msg); got != tc.want {
			t.Errorf("tidyMessage(%q, %q) = %q, want %q", tc.path, tc.msg, got, tc.want)
		}
	}
	if got := tidyMessage(ErrExists, "content/x", "Permission denied: content/x"); got != "Permission denied: /content/x" {
		t.Errorf("another kind's words were dropped: %q", got)
	}
}
