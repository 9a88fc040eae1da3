package ui

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/api/jupyter/jobs"
	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/ui/theme"
	"github.com/muesli/termenv"
)

func TestGolden(t *testing.T) {
	// One fixture dashboard: its first frame is the loading picture, and
	// each other picture starts from it as loaded.
	f, clk, shared := unloadedFixture()
	t.Run("loading_80x24", func(t *testing.T) {
		golden.RequireEqual(t, []byte(shared.View()))
	})
	shared = loadFixture(t, f, clk, shared)
	for _, sz := range [][2]int{{80, 24}, {60, 15}, {160, 48}} {
		for _, details := range []bool{false, true} {
			name := "dashboard_" + itoa(sz[0]) + "x" + itoa(sz[1])
			if details {
				name += "_details"
			}
			t.Run(name, func(t *testing.T) {
				m := asLoaded(t, shared)
				m, _ = update(m, tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
				if details {
					m, _ = update(m, keyMsg("enter"))
				}
				golden.RequireEqual(t, []byte(m.View()))
			})
		}
	}
	t.Run("help_80x24", func(t *testing.T) {
		m := asLoaded(t, shared)
		m, _ = update(m, keyMsg("?"))
		golden.RequireEqual(t, []byte(m.View()))
	})
}

func itoa(i int) string { return strconv.Itoa(i) }

// The light and dark themes as a colour terminal receives them. EXPIRING
// is yellow (33) on dark and magenta (35) on light; the selected row is
// reverse video with a "›" marker in both, so it shows without colour.
func TestThemeGoldens(t *testing.T) {
	_, _, m := fixture(t) // painted in each theme in turn
	for _, name := range []string{ThemeDark, ThemeLight} {
		t.Run(name, func(t *testing.T) {
			m.opts.Theme = name
			m.cx.Styles = theme.NewWith(ansiRenderer(), name)
			v := m.View()
			golden.RequireEqual(t, []byte(styleMap(v)))
			var expiring string
			for _, ln := range strings.Split(v, "\n") {
				if strings.Contains(ln, "EXPIRING") && !strings.Contains(ln, "›") {
					expiring = ln
				}
			}
			yellow, magenta := strings.Contains(expiring, "\x1b[1;33m"), strings.Contains(expiring, "\x1b[1;35m")
			if name == ThemeDark && (!yellow || magenta) || name == ThemeLight && (yellow || !magenta) {
				t.Errorf("%s: EXPIRING row %q", name, expiring)
			}
			var sel string
			for _, ln := range strings.Split(v, "\n") {
				if strings.HasPrefix(ansi.Strip(ln), "› ") {
					sel = ln
				}
			}
			if !strings.Contains(sel, "\x1b[7m") {
				t.Errorf("%s: selected row not in reverse video: %q", name, sel)
			}
		})
	}
	// Options.Theme reaches the styles.
	if m := New(Options{Service: newFake(), Theme: ThemeLight}); m.opts.Theme != ThemeLight {
		t.Fatal("theme lost")
	}
}

// styleSeq is one SGR escape sequence and its parameters.
var styleSeq = regexp.MustCompile("\x1b\\[([0-9;]*)m")

// sgrNames names the SGR parameters the themes use (16-colour profile).
var sgrNames = func() map[string]string {
	m := map[string]string{"1": "bold", "2": "faint", "3": "italic", "4": "underline", "7": "reverse", "9": "strike"}
	for i, c := range []string{"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"} {
		m[strconv.Itoa(30+i)], m[strconv.Itoa(90+i)] = c, "bright-"+c
		m[strconv.Itoa(40+i)], m[strconv.Itoa(100+i)] = "on-"+c, "on-bright-"+c
	}
	return m
}()

// styleMap renders a coloured frame for review by eye: the plain text,
// then one line per run of same-styled cells, "line:from-to attributes
// "text"" (1-based line, 0-based cell columns, end exclusive), so a
// reviewer reads the layout as it looks and each span's style in words
// instead of an escape code around every character.
func styleMap(frame string) string {
	var plain, spans strings.Builder
	for n, line := range strings.Split(frame, "\n") {
		type cell struct {
			r     string
			style string
		}
		var cells []cell
		style := []string{}
		rest := line
		for rest != "" {
			loc := styleSeq.FindStringSubmatchIndex(rest)
			text := rest
			if loc != nil {
				text = rest[:loc[0]]
			}
			for _, r := range text {
				cells = append(cells, cell{string(r), strings.Join(style, " ")})
			}
			if loc == nil {
				break
			}
			for _, p := range strings.Split(rest[loc[2]:loc[3]], ";") {
				if p == "" || p == "0" {
					style = style[:0]
				} else if name, ok := sgrNames[p]; ok && !slices.Contains(style, name) {
					style = append(style, name)
				} else if !ok {
					style = append(style, "sgr"+p)
				}
			}
			rest = rest[loc[1]:]
		}
		col := 0
		for i := 0; i < len(cells); {
			j, text := i, ""
			for j < len(cells) && cells[j].style == cells[i].style {
				text += cells[j].r
				j++
			}
			w := ansi.StringWidth(text)
			if cells[i].style != "" {
				fmt.Fprintf(&spans, "%d:%d-%d %s %q\n", n+1, col, col+w, cells[i].style, text)
			}
			plain.WriteString(text)
			col += w
			i = j
		}
		plain.WriteString("\n")
	}
	return plain.String() + "--- styled spans (line:from-to attributes \"text\") ---\n" + spans.String()
}

// ansiRenderer renders with the 16-colour ANSI profile, so goldens show
// which palette index each theme uses.
func ansiRenderer() *lipgloss.Renderer {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI)
	return r
}

// readmePath is README.md, seen from this package's directory; its demo
// screenshot stands between these two lines.
const (
	readmePath               = "../README.md"
	screenshotStart          = "<!-- demo screenshot: generated by ui's TestReadmeScreenshot; go test ./ui -run TestReadmeScreenshot -update -->\n```\n"
	screenshotEnd            = "```\n<!-- end of demo screenshot -->\n"
	screenshotW, screenshotH = 100, 30
)

// README's text screenshot is what `colabdash --demo` shows at 100×30:
// the demo seed of the emulator, rendered by the dashboard on a clock
// fixed 4 minutes after the seed was made, the second runtime selected;
// its details show beside its sessions (split layout) without enter, which
// would widen them. A change to the dashboard that changes this frame
// fails here until README is regenerated (-update), so the picture stays
// true.
func TestReadmeScreenshot(t *testing.T) {
	// The monitor on, as in `colabdash --demo`: a tick after its first
	// polls (runtimes whose tokens were being renewed wait for it) every
	// runtime has its figures.
	s := newStack(t, stackOpts{emu: colabfake.Options{Seed: colabfake.SeedDemo}, width: screenshotW,
		ui: Options{Demo: true, Profile: "demo", Monitor: apimon.New(apimon.Options{})}})
	s.m, _ = update(s.m, tea.WindowSizeMsg{Width: screenshotW, Height: screenshotH})
	s.start()
	s.tick(4 * time.Minute)
	s.tick(30 * time.Second)
	s.m, _ = update(s.m, keyMsg("down"))
	// The demo's running job runs on the emulator's clock, in the
	// background: once it has caught up with the jump, the selected
	// runtime's next listing reads it running, as a dashboard sees it.
	waitJobCaughtUp(t, s, colabfake.DemoJobsRuntime, colabfake.DemoRunningJob)
	s.tick(5 * time.Second)
	// The emulator's runtime proxy listens on a port of the moment: the
	// picture shows one fixed port of the same width.
	view := regexp.MustCompile(`127\.0\.0\.1:[0-9]{5}`).ReplaceAllString(s.view(), "127.0.0.1:41234")
	// The job's last line is where its script is when the listing reads
	// it (the job catches up with the clock in the background): the
	// picture shows one of them.
	view = regexp.MustCompile(`(running +[0-9ms]+ +│ )epoch [^…\n]*…`).ReplaceAllString(view, "${1}epoch 90: 80%|########…")
	var frame strings.Builder
	for _, l := range strings.Split(view, "\n") {
		frame.WriteString(strings.TrimRight(l, " ") + "\n")
	}
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(readme, []byte(screenshotStart))
	j := bytes.Index(readme, []byte(screenshotEnd))
	if i < 0 || j < i {
		t.Fatalf("README.md has no demo screenshot block (%q … %q)", screenshotStart, screenshotEnd)
	}
	got := string(readme[i+len(screenshotStart) : j])
	if got == frame.String() {
		return
	}
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		out := append(append(append([]byte{}, readme[:i+len(screenshotStart)]...), frame.String()...), readme[j:]...)
		if err := os.WriteFile(readmePath, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README's demo screenshot is stale (go test ./ui -run TestReadmeScreenshot -update); the dashboard shows:\n%s", frame.String())
}

// waitJobCaughtUp waits (at most 30 s) until job id on runtime rtID has
// written its status within a heartbeat of the emulator's clock.
func waitJobCaughtUp(t *testing.T, s *stack, rtID, id string) {
	t.Helper()
	r := s.m.cx.Snap.Runtime("runtimes/" + rtID)
	if r == nil || r.ConnectionInfo == nil {
		t.Fatalf("no runtime %s", rtID)
	}
	jc, err := jupyter.New(jupyter.Options{Runtime: r.Name, Info: *r.ConnectionInfo, Now: s.clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		rec, err := jobs.Read(context.Background(), jc, id)
		if err == nil && rec.Status != nil && s.clk.Now().Sub(rec.Status.Heartbeat) <= jobs.HeartbeatEvery {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s has not caught up with the clock: %+v, %v", id, rec.Status, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
