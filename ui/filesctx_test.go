package ui

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/overlay/files"
	"github.com/colabdash/colabdash/ui/overlay/files/pane"
)

// stallProxy sits on loopback in front of a runtime's proxy: it passes
// every request on, except a download (/files/…), which it holds until
// the client gives up. arrived and ended say when one came and went.
type stallProxy struct {
	srv             *httptest.Server
	arrived, ended  chan struct{}
	upstreamPathURL string
}

func newStallProxy(t *testing.T, upstream string) *stallProxy {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	s := &stallProxy{arrived: make(chan struct{}, 8), ended: make(chan struct{}, 8)}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/files/") {
			s.arrived <- struct{}{}
			<-r.Context().Done()
			s.ended <- struct{}{}
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(s.srv.Close)
	s.upstreamPathURL = s.srv.URL + u.Path
	return s
}

func waitFor(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(20 * time.Second): // the client's idle watchdog is 30 s
		t.Fatalf("%s never happened", what)
	}
}

// startStalledDownload opens the files pane of rt-t4demo7k2p through a
// stallProxy and starts a download of content/data.csv that the proxy
// holds; it returns the model, the proxy and the transfer's command.
func startStalledDownload(t *testing.T, e *emu, m Model) (Model, *stallProxy, tea.Cmd) {
	t.Helper()
	putRemote(t, e, "rt-t4demo7k2p", "content/data.csv", "a,b\n")
	m = m.selectID(t, "rt-t4demo7k2p")
	ci := m.cx.Snap.Runtime(m.rt.Selected()).ConnectionInfo
	stall := newStallProxy(t, ci.URL)
	ci.URL = stall.upstreamPathURL
	m = e.press(t, m, "f", "down", "D")
	m = typeText(e, t, m, filepath.Join(t.TempDir(), "data.csv"))
	m, xfer := enterDownload(t, e, m)
	waitFor(t, stall.arrived, "the download's request")
	return m, stall, xfer
}

// enterDownload presses enter on the download-to dialog and feeds back
// where the download lands (a local stat in a command); the download
// then runs, and the returned command waits for its first message.
func enterDownload(t *testing.T, e *emu, m Model) (Model, tea.Cmd) {
	t.Helper()
	e.clk.add(DialogGrace)
	m, plan := update(m, keyMsg("enter"))
	if plan == nil {
		t.Fatalf("enter started nothing:\n%s", m.View())
	}
	pm, ok := plan().(pane.PlanMsg)
	if !ok {
		t.Fatalf("enter did not plan the download first:\n%s", m.View())
	}
	m, xfer := update(m, pm)
	if xfer == nil {
		t.Fatalf("the plan started no download:\n%s", m.View())
	}
	return m, xfer
}

// The files pane's calls belong to the dashboard: a profile switch
// closes the pane and stops its transfer (it ran on the old account's
// runtime), and quitting stops it too.
func TestFilesPaneTransferEndsWithProfileAndQuit(t *testing.T) {
	t.Run("profile switch", func(t *testing.T) {
		release := make(chan struct{})
		e, m := emuModel(t, colabfake.Options{}, func(o *Options) {
			o.Profile, o.Profiles = "alpha", []string{"alpha", "beta"}
			o.Connect = func(ctx context.Context, name string) (api.Service, ConnInfo, error) {
				<-release
				return newFake(), ConnInfo{Account: name + "@example.com"}, nil
			}
		})
		m = e.press(t, m, "P", "down")
		m, connect := update(m, keyMsg("enter")) // connecting to beta…
		m, stall, xfer := startStalledDownload(t, e, m)
		goRun(t, "the stalled download", xfer)
		close(release)
		m, _ = update(m, connect())
		if m.Profile() != "beta" || topIs[*files.Overlay](m.scr) {
			t.Fatalf("after the switch: profile %q, files pane still open:\n%s", m.Profile(), m.View())
		}
		waitFor(t, stall.ended, "the old profile's download stopping")
	})
	t.Run("quit", func(t *testing.T) {
		e, m := emuModel(t, colabfake.Options{}, nil)
		m, stall, xfer := startStalledDownload(t, e, m)
		goRun(t, "the stalled download", xfer)
		m, cmd := update(m, keyMsg("q"))
		if _, quit := cmd().(tea.QuitMsg); !quit {
			t.Fatalf("q did not quit from the files pane:\n%s", m.View())
		}
		waitFor(t, stall.ended, "the download stopping on quit")
	})
}

// A transfer's late answer names its runtime: the download cancelled on
// rt-t4demo7k2p's pane lands after the user opened rt-cpudemo4qx's, and
// neither speaks for that pane in the status line nor is logged against
// it.
func TestLateFilesAnswerStaysWithItsRuntime(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m, stall, xfer := startStalledDownload(t, e, m)
	m = e.press(t, m, "esc")
	mustContain(t, m.View(), "files pane closed: stopping the download of data.csv…")
	waitFor(t, stall.ended, "the download stopping when its pane closed")
	late := xfer()
	m = m.selectID(t, "rt-cpudemo4qx")
	m = e.press(t, m, "f")
	mustContain(t, m.View(), "rt-cpudemo4qx:/content")
	m, _ = update(m, late)
	if v := m.View(); strings.Contains(v, "download failed") {
		t.Fatalf("rt-t4demo7k2p's late answer reached rt-cpudemo4qx's pane:\n%s", v)
	}
	ev := m.Events()[0]
	if ev.Tool != "files download" || ev.Target != "runtimes/rt-t4demo7k2p" {
		t.Fatalf("the late answer was logged as %q on %q", ev.Tool, ev.Target)
	}
}
