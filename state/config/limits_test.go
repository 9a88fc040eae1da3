package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/safefile/safefiletest"
)

// 20,000 nested brackets took 10 s and 660 MB in the
// parser. The limits are checked first: the error names the file, the
// line and the limit, and the parser never runs (its own errors read
// "YAML syntax: …").
func TestYAMLNestingAndSizeCapped(t *testing.T) {
	block := func(depth int) string {
		var b strings.Builder
		for i := 0; i < depth; i++ {
			b.WriteString(strings.Repeat(" ", i) + "k:\n")
		}
		return b.String()
	}
	for name, c := range map[string]struct{ src, want string }{
		"20,000 nested brackets": {"refreshInterval: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n",
			"config c.yaml:1: YAML nested more than 64 levels deep"},
		"nested maps":                      {"profiles: " + strings.Repeat("{a: ", 5000) + strings.Repeat("}", 5000), "nested more than 64 levels deep"},
		"an apostrophe hides nothing":      {"theme: don't\nx: " + strings.Repeat("[", 20000), "config c.yaml:2: YAML nested more than 64 levels deep"},
		"deep indentation":                 {block(200), "config c.yaml:65: YAML nested more than 64 levels deep"},
		"a flow list of 20,000 values":     {"keys:\n  quit: [" + strings.Repeat("q,", 20000) + "q]\n", "more than 10000 YAML values"},
		"20,000 lines":                     {strings.Repeat("a: b\n", 20000), "config c.yaml:10001: more than 10000 YAML values"},
		"multi-line flow of many brackets": {"a:\n" + strings.Repeat("  [\n", 100), "nested more than 64 levels deep"},
	} {
		_, err := parseAs(t, "c.yaml", c.src)
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v\nwant it to contain %q", name, err, c.want)
		}
	}
}

// What a config needs stays accepted: quoted brackets, comments with
// brackets, flow lists of keys, a few levels of nesting.
func TestYAMLLimitsAcceptRealConfigs(t *testing.T) {
	for _, src := range []string{
		"keys:\n  refresh: [\"[\", '{', \"ctrl+r\"]  # [[[[ not nesting\n",
		"theme: light # it's fine\nprofile: work\nprofiles:\n  work:\n    credentials: accessToken\n    accessTokenFile: '/tmp/it''s [here'\n",
		"profiles: {work: {credentials: adc, endpoint: \"http://127.0.0.1:9/mcp\"}}\n",
		// A quote at the start of a line's content opens a quoted scalar.
		"keys:\n  refresh: [\n    \"" + strings.Repeat("[", 100) + "\",\n    'ctrl+r']\n",
	} {
		if _, err := parseAs(t, "ok.yaml", src); err != nil {
			t.Errorf("%q refused: %v", src, err)
		}
	}
	data, err := os.ReadFile("testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := checkYAMLLimits("full.yaml", data); err != nil {
		t.Errorf("testdata/full.yaml: %v", err)
	}
}

func parseAs(t *testing.T, file, src string) (*Settings, error) {
	t.Helper()
	return ParseSettings(file, []byte(src), SettingsOptions{Actions: testActions})
}

// The config file is read the bounded way: a symlink to /dev/zero, a FIFO
// or a file over 1 MiB is a one-line error naming the file, at once.
func TestConfigFileReadIsBounded(t *testing.T) {
	dir := t.TempDir()
	zero := safefiletest.EndlessLink(t, dir, "zero.yaml")
	fifo := safefiletest.FIFO(t, dir, "fifo.yaml")
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte("# "+strings.Repeat("x", 1<<20)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		zero: "config " + zero + ": cannot read: is a character device, not a regular file (a link to /dev/zero)",
		fifo: "config " + fifo + ": cannot read: is a FIFO (named pipe), not a regular file",
		big:  "config " + big + ": cannot read: is 1048579 bytes, more than the 1 MiB allowed",
		dir:  "config " + dir + ": cannot read: is a directory, not a regular file",
	} {
		_, err := LoadSettings(path, true, SettingsOptions{Actions: testActions})
		if err == nil || err.Error() != want {
			t.Errorf("LoadSettings(%s) = %v\nwant %s", filepath.Base(path), err, want)
		}
	}
}
