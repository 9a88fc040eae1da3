package logview

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/secrettest"
	"github.com/colabdash/colabdash/ui/common/commontest"
)

// A secret a log writes with controls or escape sequences inside it,
// which the viewer shows as symbols (␇, ␛]0;…) or applies (colours),
// is redacted on the screen and in the saved file: no 8 characters of
// it are left beside the symbols.
func TestSecretSplitByControlsIsRedacted(t *testing.T) {
	const (
		registered = "pRoXy-t0k3n-Q9w8E7r6T5y4U3i2O1p0zZ"
		access     = "ya29.a0AfB_unRegistered-T0ken_0123456789"
	)
	red := &api.Redactor{}
	red.Add(registered)
	v := open(t, 160, 24)
	v.c.Redact = red.Redact
	v.feed("a " + registered[:4] + "\a" + registered[4:17] + "\x1b]0;t\a" + registered[17:30] + "\x1b[1m" + registered[30:] + " b\n" +
		"c " + access[:7] + "\x00" + access[7:20] + "\x1b[?25l" + access[20:34] + "\u009c" + access[34:] + " d\n")
	s := commontest.Screen(t, v.o, v.c)
	if secrettest.Check(t, "the viewer", s, registered, access) && (!strings.Contains(s, " b") || !strings.Contains(s, " d")) {
		t.Errorf("the lines are lost:\n%s", s)
	}
	path := filepath.Join(t.TempDir(), "out.log")
	v.o.Save(v.c, path, false)()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	secrettest.Check(t, "the saved log", string(b), registered, access)
}
