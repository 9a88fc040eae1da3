package footer

import (
	"fmt"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/common/commontest"
	"github.com/colabdash/colabdash/ui/overlay/console"
)

// oneSession is a console.Runs with one session's transcript and nothing
// running or closed.
type oneSession struct{ tr *console.Transcript }

func (o oneSession) Transcript(string) *console.Transcript { return o.tr }
func (oneSession) Running(string) (console.Run, bool)      { return console.Run{}, false }
func (oneSession) Closed(string) bool                      { return false }

// The console's way out (esc) and ctrl+c are never the part of its key
// help that a narrow footer cuts; scrolled up at 100 columns, the footer
// still says newer lines are below (at 60 "newer below" is cut).
func TestFooterKeepsTheConsolesWayOut(t *testing.T) {
	const rt, sess = "runtimes/r-alpha", "runtimes/r-alpha/sessions/colabdash-1"
	var out strings.Builder
	for i := range 200 {
		fmt.Fprintf(&out, "output line %d\n", i)
	}
	tr := &console.Transcript{}
	tr.AddIn(sess, "print_many()")
	tr.AddResult(api.ExecuteCodeResult{Stdout: out.String()})
	for _, w := range []int{60, 80, 100} {
		c := fixture(w)
		p := console.New(oneSession{tr})
		p.Show(rt, sess)
		_, keys := view(t, c, w, State{Keys: p.Keys(c)})
		commontest.MustContain(t, keys, "esc back", "ctrl+c clear", "enter run")
		if w < 100 {
			continue
		}
		p.HandleKey(commontest.Key("pgup"), c)
		_, keys = view(t, c, w, State{Keys: p.Keys(c)})
		commontest.MustContain(t, keys, "esc back", "newer below")
	}
}
