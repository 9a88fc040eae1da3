package kit

import (
	"runtime/debug"
	"strings"
	"testing"
)

// What `version` reports for the ways colabdash is built: a release
// (stamped, vcs.modified read), `go install …@v1.2.3` (module version and
// VCS settings), a checkout with changes, and a build that knows nothing.
func TestBuildFrom(t *testing.T) {
	vcs := func(rev, when, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "-trimpath", Value: "true"}, {Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: when}, {Key: "vcs.modified", Value: modified}}
	}
	installed := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/colabdash/colabdash", Version: "v1.2.3"},
		Settings: vcs("0123456789abcdef0123456789abcdef01234567", "2026-11-30T09:00:00Z", "false")}
	cases := []struct {
		name    string
		stamped Build
		bi      *debug.BuildInfo
		want    Build
		line    string
	}{
		{"release: every stamped value wins over the build information", Build{Version: "v2.0.0", Commit: "feedface", Date: "2026-12-01T10:00:00Z"}, installed,
			Build{Version: "v2.0.0", Commit: "feedface", Date: "2026-12-01T10:00:00Z", GoVersion: "go1.26.8"},
			"colabdash v2.0.0 (commit feedface, 2026-12-01T10:00:00Z, go1.26.8)"},
		{"go install of a tag: module version, commit and its time", Build{Version: "dev"}, installed,
			Build{Version: "v1.2.3", Commit: "0123456789abcdef0123456789abcdef01234567", Date: "2026-11-30T09:00:00Z", GoVersion: "go1.26.8"},
			"colabdash v1.2.3 (commit 0123456789abcdef0123456789abcdef01234567, 2026-11-30T09:00:00Z, go1.26.8)"},
		{"a checkout with changes: (devel) is no version", Build{Version: "dev"},
			&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs("abc", "2026-11-30T09:00:00Z", "true")},
			Build{Version: "dev", Commit: "abc", Date: "2026-11-30T09:00:00Z", Modified: true, GoVersion: "go1.26.8"},
			"colabdash dev (commit abc, modified, 2026-11-30T09:00:00Z, go1.26.8)"},
		{"a release built from a modified tree: stamped values, vcs.modified", Build{Version: "v2.0.0", Commit: "feedface", Date: "2026-12-01T10:00:00Z"},
			&debug.BuildInfo{GoVersion: "go1.26.8", Settings: vcs("abc", "2026-11-30T09:00:00Z", "true")},
			Build{Version: "v2.0.0", Commit: "feedface", Date: "2026-12-01T10:00:00Z", Modified: true, GoVersion: "go1.26.8"},
			"colabdash v2.0.0 (commit feedface, modified, 2026-12-01T10:00:00Z, go1.26.8)"},
		{"nothing known", Build{}, &debug.BuildInfo{GoVersion: "go1.26.8"},
			Build{Version: "dev", GoVersion: "go1.26.8"}, "colabdash dev (commit unknown, go1.26.8)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := buildFrom(tc.stamped, tc.bi)
			if got != tc.want {
				t.Errorf("buildFrom = %+v, want %+v", got, tc.want)
			}
			if got.String() != tc.line {
				t.Errorf("line %q, want %q", got.String(), tc.line)
			}
		})
	}
	// Without build information the Go version is still the running one.
	if b := buildFrom(Build{}, nil); b.Version != "dev" || !strings.HasPrefix(b.GoVersion, "go") {
		t.Errorf("no build info: %+v", b)
	}
}
