package jobs

import (
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/secrettest"
)

// A secret a log writes with controls or escape sequences inside it is
// redacted on the terminal and into a pipe, with colour and without:
// the drawer shows such a control as a symbol (␇) or an escape sequence
// it does not draw as text (␛]0;…), and no 8 characters of the secret
// are left beside them.
func TestLogsRedactASecretSplitByControls(t *testing.T) {
	const (
		registered = "pRoXy-t0k3n-Q9w8E7r6T5y4U3i2O1p0zZ"
		access     = "ya29.a0AfB_unRegistered-T0ken_0123456789"
		bearer     = "AbCdEfGh0123456789IjKlMnOpQrStUv"
	)
	red := &api.Redactor{}
	red.Add(registered)
	var log strings.Builder
	for _, ins := range []string{"\a", "\x00", "\x7f", "\u009c", "\x1b[1m", "\x1b]0;t\a", "\x1b[?25l", "\x1b(B"} {
		for _, sec := range []string{registered, access, bearer} {
			log.WriteString("got Bearer " + sec[:3] + ins + sec[3:len(sec)/2] + ins + sec[len(sec)/2:len(sec)-3] + ins + sec[len(sec)-3:] + " end\n")
		}
	}
	for _, tm := range []struct{ tty, color bool }{{false, false}, {true, false}, {true, true}} {
		var out strings.Builder
		o := newLogOut(redacting{&out, red}, tm.tty, tm.color, red)
		if err := o.Write([]byte(log.String())); err != nil {
			t.Fatal(err)
		}
		if err := o.Flush(); err != nil {
			t.Fatal(err)
		}
		if out.String() == log.String() {
			t.Errorf("terminal %v, colour %v: nothing redacted", tm.tty, tm.color)
		}
		for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			screen := l // into a pipe: the raw bytes, read as text
			if tm.tty {
				screen = visible(l)
			}
			if !secrettest.Check(t, "the log's line", screen, registered, access, bearer) || !strings.HasSuffix(screen, " end") {
				t.Errorf("terminal %v, colour %v: %q", tm.tty, tm.color, l)
			}
		}
	}
}

// redacting is stdout as the commands have it: every write redacted.
type redacting struct {
	w   *strings.Builder
	red *api.Redactor
}

func (r redacting) Write(p []byte) (int, error) {
	r.w.Write(r.red.RedactBytes(p))
	return len(p), nil
}
