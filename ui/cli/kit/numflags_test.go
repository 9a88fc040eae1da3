package kit_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/colabdash/colabdash/ui/cli"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// pflagNumbers are the types of pflag's own numeric flags.
var pflagNumbers = map[string]bool{"int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true, "float32": true, "float64": true, "count": true}

// Every numeric flag of every command refuses a value that is not a
// whole number with one line saying what it takes (`--tail must be a
// whole number of lines, not "abc"`) and exit 2, never strconv's words;
// and every numeric flag is one of kit's, so a flag added with pflag's
// own IntVar fails here.
func TestNumericFlagsSayWhatTheyTake(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", home)
	t.Setenv("XDG_STATE_HOME", home)
	t.Setenv("COLABDASH_CONFIG", "")
	type numFlag struct {
		path []string // the command's words after colabdash
		name string
	}
	var flags []numFlag
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			switch {
			case kit.IsNumberFlag(f):
				flags = append(flags, numFlag{strings.Fields(c.CommandPath())[1:], f.Name})
			case pflagNumbers[f.Value.Type()]:
				t.Errorf("%s --%s is pflag's %s: define it with kit.IntVar so a bad value gets one clear line", c.CommandPath(), f.Name, f.Value.Type())
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(cli.CommandTree())
	want := map[string]string{
		"logs --tail":               "a whole number of lines",
		"cp --jobs":                 "a whole number from 1 to 32",
		"forward --port":            "a port number (0 to 65535)",
		"emulator --runtimes":       "a whole number of runtimes",
		"emulator --proxy-max-body": "a whole number of bytes",
		"emulator --many-files":     "a whole number of files",
	}
	if len(flags) < len(want) {
		t.Errorf("found %d numeric flags, want at least the %d known", len(flags), len(want))
	}
	for _, f := range flags {
		key := strings.Join(f.path, " ") + " --" + f.name
		t.Run(key, func(t *testing.T) {
			for _, bad := range []string{"abc", "1.5", "99999999999999999999999"} {
				var out, errs bytes.Buffer
				code := cli.Run(append(append([]string{}, f.path...), "--"+f.name, bad), &out, &errs)
				line := strings.TrimSpace(errs.String())
				if code != kit.ExitUsage || strings.Contains(line, "\n") || strings.Contains(line, "strconv") ||
					!strings.HasPrefix(line, "colabdash: --"+f.name+" must be ") || !strings.HasSuffix(line, `, not "`+bad+`"`) {
					t.Errorf("--%s %s: exit %d, stderr %q; want exit 2 and one line --%s must be …, not %q", f.name, bad, code, errs.String(), f.name, bad)
				}
				if w, ok := want[key]; ok && !strings.Contains(line, w) {
					t.Errorf("--%s %s: stderr %q does not say it takes %s", f.name, bad, line, w)
				}
			}
		})
	}
}
