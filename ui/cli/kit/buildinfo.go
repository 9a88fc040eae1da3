package kit

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// Version, Commit and Date are stamped by a release build
// (.goreleaser.yaml) with
//
//	-ldflags "-X github.com/colabdash/colabdash/ui/cli/kit.Version=v1.2.3 -X …kit.Commit=HASH -X …kit.Date=2026-12-01T10:00:00Z"
//
// Each value left as it is here is read from the binary's build
// information instead (ReadBuild): `go install …@v1.2.3` records the
// module's version, and a build in a git checkout records vcs.revision,
// vcs.time and vcs.modified (whether the tree was modified is always
// read there).
var (
	Version = "dev" // the release, e.g. "v1.2.3"
	Commit  = ""    // the commit built, its full hash
	Date    = ""    // when the release was built, RFC 3339
)

// Build is what a binary knows of how it was built: what `version`
// prints and the fields of `version --json`.
type Build struct {
	// Version is the release ("v1.2.3"), the module version `go install`
	// recorded (a tag or a pseudo-version such as
	// "v0.0.0-20261201100000-0123456789ab"), else "dev".
	Version string `json:"version"`
	// Commit is the full hash of the commit built; "" when unknown (a
	// build outside a checkout, or with -buildvcs=false).
	Commit string `json:"commit"`
	// Date is when the release was built (stamped), else the time of the
	// commit built (vcs.time), RFC 3339 in UTC; "" when unknown.
	Date string `json:"date"`
	// Modified says the work tree had changes not committed when it was
	// built; false when unknown too.
	Modified bool `json:"modified"`
	// GoVersion is the Go toolchain that built it, e.g. "go1.26.8".
	GoVersion string `json:"goVersion"`
}

// ReadBuild is this binary's Build: the stamped values (Version,
// Commit, Date) where set, the build information elsewhere.
func ReadBuild() Build {
	bi, _ := debug.ReadBuildInfo()
	return buildFrom(Build{Version: Version, Commit: Commit, Date: Date}, bi)
}

// buildFrom is stamped completed from bi (which may be nil): the module
// version when stamped.Version is "dev" or empty, vcs.revision and
// vcs.time where nothing was stamped, and vcs.modified.
func buildFrom(stamped Build, bi *debug.BuildInfo) Build {
	b := stamped
	b.GoVersion = runtime.Version()
	if b.Version == "" {
		b.Version = "dev"
	}
	if bi != nil {
		b.GoVersion = bi.GoVersion
		// "(devel)" is what a build of the main module records when
		// it knows no version.
		if v := bi.Main.Version; b.Version == "dev" && v != "" && v != "(devel)" {
			b.Version = v
		}
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && b.Commit == "":
				b.Commit = s.Value
			case s.Key == "vcs.time" && b.Date == "":
				b.Date = s.Value
			case s.Key == "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	return b
}

// String is the human line of `version` and `--version`:
// "colabdash VERSION (commit C[, modified][, DATE], GOVERSION)", the
// commit "unknown" when it is.
func (b Build) String() string {
	commit := b.Commit
	if commit == "" {
		commit = "unknown"
	}
	parts := []string{"commit " + commit}
	if b.Modified {
		parts = append(parts, "modified")
	}
	if b.Date != "" {
		parts = append(parts, b.Date)
	}
	parts = append(parts, b.GoVersion)
	return "colabdash " + b.Version + " (" + strings.Join(parts, ", ") + ")"
}

// VersionString is what version and --version print (Build.String of
// ReadBuild).
func VersionString() string { return ReadBuild().String() }
