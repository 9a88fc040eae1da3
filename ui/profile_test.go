package ui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

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
	m.svc = old
	next := newFake()
	next.runtimes = []api.Runtime{mkRuntime("r-other", specCPU, t0.Add(time.Hour), "")}
	m.cx.Profile, m.cx.Profiles = "alpha", []string{"alpha", "broken", "other"}
	m.opts.Connect = func(_ context.Context, name string) (api.Service, ConnInfo, error) {
		if name == "broken" {
			return nil, ConnInfo{}, errors.New("no Google credentials found; fix: run gcloud auth application-default login")
		}
		return next, ConnInfo{Account: "other@example.com"}, nil
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

func TestEventLogPanel(t *testing.T) {
	f, clk, m := fixture(t)
	f.renewErr["runtimes/r-charlie"] = &api.Error{Code: api.FailedPrecondition, HTTPStatus: 400,
		Message: "The runtime is being deleted and its proxy token cannot be renewed until the deletion finishes; try again later"}
	m.cx.Redact = func(s string) string { return strings.ReplaceAll(s, "proxy token", "[redacted]") }
	clk.add(time.Second)
	m, cmd := update(m, tickMsg{gen: m.life.tickGen})
	m, _ = run(t, m, cmd)
	evs := m.Events()
	if len(evs) == 0 || evs[0].Tool != "get_runtime" {
		t.Fatalf("events %+v", evs)
	}
	m, _ = update(m, tea.WindowSizeMsg{Width: 80, Height: 40})
	m, _ = update(m, keyMsg("L"))
	v := m.View()
	for _, want := range []string{"EVENTS", "list_runtimes", "FAILED_PRECONDITION", "FAILED_PRECONDITION  r-charlie", "until the deletion", "finishes; try again later", "[redacted]"} {
		if !strings.Contains(v, want) {
			t.Errorf("event log lacks %q:\n%s", want, v)
		}
	}
	m, _ = update(m, keyMsg("esc"))
	if strings.Contains(m.View(), "EVENTS") {
		t.Fatal("esc did not close the event log")
	}
}
