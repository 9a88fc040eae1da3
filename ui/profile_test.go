package ui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
)

type closeCounter struct {
	*fakeService
	closed int
}

func (c *closeCounter) Close() error { c.closed++; return nil }

func TestProfileSwitchFailureKeepsProfileAndLateAnswersAreDropped(t *testing.T) {
	f, _, m := fixture(t)
	old := &closeCounter{fakeService: f}
	m.link.svc = old
	next := newFake()
	next.runtimes = []api.Runtime{mkRuntime("r-other", specCPU, t0.Add(time.Hour), "")}
	m.cx.Profile, m.cx.Profiles = "alpha", []string{"alpha", "broken", "other"}
	m.opts.Connect = func(_ context.Context, name string) (api.Service, ConnInfo, error) {
		if name == "broken" {
			return nil, ConnInfo{}, errors.New("no Google credentials found; fix: run gcloud auth application-default login")
		}
		return next, ConnInfo{Endpoint: "https://other.example.com/mcp"}, nil
	}
	m, _ = update(m, keyMsg("P"))
	if v := m.View(); !strings.Contains(v, "› alpha (active)") {
		t.Fatalf("picker:\n%s", v)
	}
	m, _ = update(m, keyMsg("down"))
	m, cmd := update(m, keyMsg("enter"))
	m, _ = update(m, cmd())
	if v := m.View(); m.Profile() != "alpha" || !strings.Contains(v, "profile broken: no Google credentials found") || !strings.Contains(v, "r-alpha") {
		t.Fatalf("failed switch:\n%s", v)
	}
	// A list_runtimes of the old profile is in flight while switching.
	late := m.calls.refresh(m.cx.Now(), true)
	m, _ = update(m, keyMsg("P"))
	m, _ = update(m, keyMsg("down"))
	m, _ = update(m, keyMsg("down"))
	m, cmd = update(m, keyMsg("enter"))
	m, cmd = update(m, cmd())
	if m.Profile() != "other" || m.Snapshot().Len() != 0 {
		t.Fatalf("after switch: profile %q, %d runtimes (snapshot not reset)", m.Profile(), m.Snapshot().Len())
	}
	m, _ = run(t, m, cmd) // closes the old Service, loads the new one
	if old.closed != 1 {
		t.Fatalf("old Service closed %d times", old.closed)
	}
	for _, c := range late {
		m, _ = run(t, m, c) // the old profile's answers arrive late
	}
	v := m.View()
	if !strings.Contains(v, "r-other") || strings.Contains(v, "r-alpha") || !strings.Contains(v, "profile other") {
		t.Fatalf("view after the switch:\n%s", v)
	}
}

// enter on the profile already in use closes the picker and says so in
// one status line; nothing connects.
func TestProfilePickerEnterOnTheActiveProfileSaysSo(t *testing.T) {
	_, _, m := fixture(t)
	connects := 0
	m.cx.Profile, m.cx.Profiles = "alpha", []string{"alpha", "other"}
	m.opts.Connect = func(context.Context, string) (api.Service, ConnInfo, error) {
		connects++
		return newFake(), ConnInfo{}, nil
	}
	m, _ = update(m, keyMsg("P"))
	m, cmd := update(m, keyMsg("enter"))
	if cmd != nil {
		cmd()
	}
	if v := m.View(); connects != 0 || strings.Contains(v, "PROFILES") || !strings.Contains(v, "already on profile alpha: nothing to switch") {
		t.Fatalf("enter on the active profile (%d connects):\n%s", connects, v)
	}
}
