package ui

import (
	"strings"
	"testing"
	"time"
)

// A quit while a create or a runtime's delete is under way asks first
// and says what quitting does to it: a create waiting to retry is
// dropped, one sent may still be made, a delete may not have reached
// Colab; no keeps the dashboard and says what goes on.
func TestQuitAsksWhileACreateOrADeleteIsUnderWay(t *testing.T) {
	_, clk, m := fixture(t)
	m.cr.creates = append(m.cr.creates, &createOp{id: 1, spec: specA100, started: clk.now(), state: createWaiting})
	m, cmd := update(m, keyMsg("q"))
	mustNotQuit(t, cmd, "q quit while a create waited to retry, without asking")
	mustContain(t, flat(m.View()), "A create of GPU/A100/HIGHMEM is in progress; quit anyway?",
		"Quitting drops the create of GPU/A100/HIGHMEM waiting to retry: nothing is created.")
	clk.add(dialogGrace + time.Millisecond)
	m, _ = update(m, keyMsg("n"))
	mustContain(t, flat(m.View()), "not quitting: the create of GPU/A100/HIGHMEM goes on")

	m.cr.creates = nil
	m.ops.deleting["runtimes/r-alpha"] = clk.now()
	m, cmd = update(m, keyMsg("q"))
	mustNotQuit(t, cmd, "q quit while a delete was under way, without asking")
	mustContain(t, flat(m.View()), "Deleting r-alpha; quit anyway?", "had not reached Colab leaves its runtime running")
	clk.add(dialogGrace + time.Millisecond)
	m, cmd = update(m, keyMsg("y"))
	if _, cmd = drainToQuit(t, m, cmd); cmd == nil {
		t.Fatalf("y did not quit:\n%s", m.View())
	}
}

// Work that ends while the quit question is up is not said to go on: a
// delete that finished before "n" leaves "not quitting" saying so.
func TestQuitQuestionAnsweredAfterTheWorkEnded(t *testing.T) {
	_, clk, m := fixture(t)
	m.ops.deleting["runtimes/r-alpha"] = clk.now()
	m, _ = update(m, keyMsg("q"))
	mustContain(t, flat(m.View()), "Deleting r-alpha; quit anyway?")
	delete(m.ops.deleting, "runtimes/r-alpha") // the delete answered
	clk.add(dialogGrace + time.Millisecond)
	m, _ = update(m, keyMsg("n"))
	v := flat(m.View())
	mustContain(t, v, "not quitting (what was in progress has ended)")
	if strings.Contains(v, "goes on") {
		t.Fatalf("the status says ended work goes on:\n%s", v)
	}
}

// Quitting anyway leaves a line for each piece of work still in flight,
// said on stderr once the terminal is back (LeftBehind); a quit with
// nothing in flight leaves none.
func TestQuitAnywaySaysWhatWasLeftInFlight(t *testing.T) {
	_, clk, m := fixture(t)
	if got := m.LeftBehind(); len(got) != 0 {
		t.Fatalf("before any quit: %q", got)
	}
	m.ops.deleting["runtimes/r-alpha"] = clk.now()
	m, _ = update(m, keyMsg("q"))
	clk.add(dialogGrace + time.Millisecond)
	m, cmd := update(m, keyMsg("y"))
	if _, cmd = drainToQuit(t, m, cmd); cmd == nil {
		t.Fatalf("y did not quit:\n%s", m.View())
	}
	got := m.LeftBehind()
	if len(got) != 1 || !strings.Contains(got[0], "the delete of r-alpha may not have reached Colab") {
		t.Fatalf("left behind: %q", got)
	}
}
