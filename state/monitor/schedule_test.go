package monitor

import (
	"fmt"
	"testing"
	"time"
)

// sim drives a Scheduler as the dashboard would: ask Plan at each time
// Next names, finish every poll after latency with outcome(poll), and
// record every poll started.
type sim struct {
	t        *testing.T
	s        *Scheduler
	now      time.Time
	selected string
	onScreen []string
	latency  time.Duration
	outcome  func(p Poll, at time.Time) (res, ker Outcome)
	started  []startedPoll
	pending  []startedPoll
}

type startedPoll struct {
	at time.Time
	p  Poll
}

func newSim(t *testing.T, selected string, onScreen []string) *sim {
	return &sim{t: t, s: NewScheduler(), now: t0, selected: selected, onScreen: onScreen, latency: 200 * time.Millisecond,
		outcome: func(Poll, time.Time) (Outcome, Outcome) { return OutcomeOK, OutcomeOK }}
}

// run advances until end. Next naming the same instant again and again
// while nothing starts or ends there fails the test: the dashboard
// would spin on its ticks with the polls stalled.
func (m *sim) run(end time.Time) {
	m.t.Helper()
	idle := 0
	for m.now.Before(end) {
		before := m.now
		planned := m.s.Plan(m.now, m.selected, m.onScreen)
		for _, p := range planned {
			sp := startedPoll{m.now, p}
			m.started = append(m.started, sp)
			m.pending = append(m.pending, sp)
		}
		inFlight := len(m.pending)
		next, ok := m.s.Next(m.now, m.selected, m.onScreen)
		// The earliest poll to finish.
		for i, sp := range m.pending {
			if done := sp.at.Add(m.latency); !ok || done.Before(next) || done.Equal(next) {
				next, ok = done, true
				_ = i
			}
		}
		if !ok || !next.Before(end) {
			m.now = end
			break
		}
		if next.Before(m.now) {
			next = m.now
		}
		m.now = next
		kept := m.pending[:0]
		for _, sp := range m.pending {
			if !sp.at.Add(m.latency).After(m.now) {
				res, ker := m.outcome(sp.p, m.now)
				if !sp.p.Resources {
					res = OutcomeSkipped
				}
				m.s.Done(sp.p.Runtime, m.now, res, ker)
			} else {
				kept = append(kept, sp)
			}
		}
		m.pending = kept
		if len(planned) > 0 || len(m.pending) < inFlight || m.now.After(before) {
			idle = 0
		} else if idle++; idle > 3 {
			m.t.Fatalf("at %v the scheduler asks again and again without starting a poll (%d requests in the last minute)",
				m.now.Sub(t0), len(m.s.sent))
		}
	}
}

func (m *sim) times(name string) []time.Time {
	var out []time.Time
	for _, sp := range m.started {
		if sp.p.Runtime == name {
			out = append(out, sp.at)
		}
	}
	return out
}

func gaps(ts []time.Time) []time.Duration {
	var out []time.Duration
	for i := 1; i < len(ts); i++ {
		out = append(out, ts[i].Sub(ts[i-1]))
	}
	return out
}

// The selected runtime every 5 s, the others on screen every 30 s, none
// off screen, each a resources and a kernels request, and the terminal
// list every 30 s (the selected runtime's with one poll in six).
func TestSchedulerCadence(t *testing.T) {
	m := newSim(t, "sel", []string{"sel", "a", "b"})
	m.run(t0.Add(2 * time.Minute))
	for _, g := range gaps(m.times("sel")) {
		if g != SelectedEvery {
			t.Fatalf("selected runtime polled %v apart: %v", g, gaps(m.times("sel")))
		}
	}
	if n := len(m.times("sel")); n != 24 {
		t.Errorf("selected polled %d times in 2 min", n)
	}
	for _, name := range []string{"a", "b"} {
		for _, g := range gaps(m.times(name)) {
			if g != OnScreenEvery {
				t.Fatalf("%s polled %v apart", name, gaps(m.times(name)))
			}
		}
	}
	terms := map[string][]time.Time{}
	for _, sp := range m.started {
		if !sp.p.Resources || !sp.p.Kernels || sp.p.Requests() != 2+btoi(sp.p.Terminals) {
			t.Fatalf("poll %+v", sp.p)
		}
		if sp.p.Terminals {
			terms[sp.p.Runtime] = append(terms[sp.p.Runtime], sp.at)
		}
	}
	for _, name := range []string{"sel", "a", "b"} {
		if len(terms[name]) != 4 {
			t.Errorf("%s's terminals read %d times in 2 min, want 4", name, len(terms[name]))
		}
		for _, g := range gaps(terms[name]) {
			if g != TerminalsEvery {
				t.Fatalf("%s's terminals read %v apart", name, gaps(terms[name]))
			}
		}
	}
	// Off screen: never.
	m.onScreen = []string{"sel"}
	before := len(m.times("a"))
	m.run(m.now.Add(5 * time.Minute))
	if len(m.times("a")) != before {
		t.Errorf("an off-screen runtime was polled")
	}
	// Selecting another runtime polls it at once.
	m.selected, m.onScreen = "a", []string{"sel", "a"}
	at := m.now
	m.run(m.now.Add(time.Second))
	if ts := m.times("a"); !ts[len(ts)-1].Equal(at) {
		t.Errorf("newly selected runtime not polled at once: %v", ts[len(ts)-1].Sub(at))
	}
}

// Never two polls at once for one runtime: a slow reply delays the next.
func TestSchedulerNoOverlap(t *testing.T) {
	m := newSim(t, "sel", []string{"sel"})
	m.latency = 12 * time.Second
	m.run(t0.Add(time.Minute))
	for _, g := range gaps(m.times("sel")) {
		if g < m.latency {
			t.Fatalf("overlapping polls %v apart (latency %v)", g, m.latency)
		}
	}
	s := NewScheduler()
	if p := s.Plan(t0, "sel", nil); len(p) != 1 || !s.InFlight("sel") {
		t.Fatalf("%+v", p)
	}
	if p := s.Plan(t0.Add(time.Hour), "sel", nil); len(p) != 0 {
		t.Errorf("a second poll while one is in flight: %+v", p)
	}
	if _, ok := s.Next(t0, "sel", nil); ok {
		t.Errorf("Next while the only poll is in flight")
	}
}

// Failures back off 30 s, 60 s, 120 s, 240 s, then 5 min; a success
// resets to the cadence.
func TestSchedulerBackoff(t *testing.T) {
	fail := true
	m := newSim(t, "sel", []string{"sel"})
	m.latency = 0
	m.outcome = func(Poll, time.Time) (Outcome, Outcome) {
		if fail {
			return OutcomeFailed, OutcomeOK
		}
		return OutcomeOK, OutcomeOK
	}
	m.run(t0.Add(15 * time.Minute))
	want := []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute, 4 * time.Minute, 5 * time.Minute}
	g := gaps(m.times("sel"))
	if len(g) < len(want) {
		t.Fatalf("gaps %v", g)
	}
	for i, w := range want {
		if g[i] != w {
			t.Fatalf("gaps %v, want %v…", g, want)
		}
	}
	if m.s.Failures("sel") != len(g)+1 {
		t.Errorf("failures %d", m.s.Failures("sel"))
	}
	fail = false
	m.run(m.now.Add(6 * time.Minute))
	g = gaps(m.times("sel"))
	if g[len(g)-1] != SelectedEvery || m.s.Failures("sel") != 0 {
		t.Errorf("after a success: gaps %v", g[len(g)-3:])
	}
	if Backoff(100) != BackoffMax {
		t.Errorf("Backoff(100) = %v", Backoff(100))
	}
}

// Resources not offered (a Jupyter 404) are asked again every 10 min;
// the kernels keep their cadence in between.
func TestSchedulerNotOffered(t *testing.T) {
	m := newSim(t, "sel", []string{"sel"})
	m.latency = 0
	m.outcome = func(Poll, time.Time) (Outcome, Outcome) { return OutcomeNotOffered, OutcomeOK }
	m.run(t0.Add(25 * time.Minute))
	var res []time.Time
	for _, sp := range m.started {
		if sp.p.Resources {
			res = append(res, sp.at)
		}
		if !sp.p.Kernels {
			t.Fatalf("kernels left out: %+v", sp.p)
		}
	}
	if g := gaps(res); len(g) != 2 || g[0] != NotOfferedRecheck || g[1] != NotOfferedRecheck {
		t.Errorf("resources asked at gaps %v, want every 10 min", g)
	}
	if g := gaps(m.times("sel")); g[0] != SelectedEvery {
		t.Errorf("kernels polled %v apart", g[0])
	}
}

// At 1,000 runtimes all on screen: never more than 120 requests in any
// minute, the selected runtime still every 5 s, every runtime polled
// eventually, and one Plan stays cheap.
func TestSchedulerThousandRuntimes(t *testing.T) {
	names := make([]string, 1000)
	for i := range names {
		names[i] = fmt.Sprintf("rt-%04d", i)
	}
	m := newSim(t, names[500], names)
	end := t0.Add(10 * time.Minute)
	m.run(end)
	var sent []time.Time
	for _, sp := range m.started {
		for range sp.p.Requests() {
			sent = append(sent, sp.at)
		}
	}
	for i := range sent {
		j := i
		for j < len(sent) && sent[j].Sub(sent[i]) < time.Minute {
			j++
		}
		if j-i > MaxPerMinute {
			t.Fatalf("%d requests in the minute from %v", j-i, sent[i].Sub(t0))
		}
	}
	if len(sent) < 10*MaxPerMinute-2*MaxPerMinute/10 {
		t.Errorf("only %d requests in 10 minutes: the budget is wasted", len(sent))
	}
	for _, g := range gaps(m.times(names[500])) {
		if g != SelectedEvery {
			t.Fatalf("the selected runtime polled %v apart at 1,000 runtimes", g)
		}
	}
	polled := map[string]bool{}
	for _, sp := range m.started {
		polled[sp.p.Runtime] = true
	}
	// Each of the others' polls is three requests (resources, kernels,
	// terminals): their share of 10 minutes polls about 313 runtimes.
	if want := 10 * (MaxPerMinute - SelectedReserve) / maxPollRequests; len(polled) < want-5 {
		t.Errorf("%d runtimes polled in 10 min", len(polled))
	}
	// Oldest first: no runtime is polled twice before all were once.
	seen := map[string]int{}
	for _, sp := range m.started {
		if sp.p.Runtime == names[500] {
			continue
		}
		seen[sp.p.Runtime]++
		if seen[sp.p.Runtime] == 2 && len(seen) < len(names)-1 {
			t.Fatalf("%s polled twice while %d runtimes were never polled", sp.p.Runtime, len(names)-1-len(seen))
		}
	}
	start := time.Now()
	s := m.s
	for i := range 100 {
		s.Plan(end.Add(time.Duration(i)*time.Second), names[500], names)
	}
	// Generous: the race detector and a busy machine slow it tenfold.
	if d := time.Since(start) / 100; d > 50*time.Millisecond {
		t.Errorf("Plan at 1,000 runtimes takes %v", d)
	}
	s.Retain(func(string) bool { return false })
	if s.Failures(names[0]) != 0 || s.InFlight(names[500]) {
		t.Errorf("Retain kept state")
	}
}

// With no runtime selected, the runtimes on screen keep their 30 s
// cadence.
func TestSchedulerWithoutASelection(t *testing.T) {
	m := newSim(t, "", []string{"a", "b"})
	m.run(t0.Add(2 * time.Minute))
	for _, name := range []string{"a", "b"} {
		g := gaps(m.times(name))
		if len(g) != 3 {
			t.Fatalf("%s polled %d times in 2 min, want 4", name, len(g)+1)
		}
		for _, d := range g {
			if d != OnScreenEvery {
				t.Fatalf("%s polled %v apart", name, g)
			}
		}
	}
}

// runtimes returns n runtime names r-000… .
func runtimes(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("r-%03d", i)
	}
	return out
}

// The other runtimes never take the selected runtime's reserve, not even
// one request of it: at 92 of their 94 requests of a minute, a poll of
// three waits, and the selected runtime still gets its reserve.
func TestSchedulerOthersStopAtTheirShareExactly(t *testing.T) {
	s := NewScheduler()
	// x: resources not offered, so its next poll is two requests.
	s.Plan(t0, "", []string{"x"})
	s.Done("x", t0, OutcomeNotOffered, OutcomeOK)
	if p := s.Plan(t0.Add(OnScreenEvery), "", []string{"x"}); len(p) != 1 || p[0].Requests() != 2 {
		t.Fatalf("x's second poll %+v, want two requests", p)
	}
	s.Done("x", t0.Add(OnScreenEvery), OutcomeSkipped, OutcomeOK)
	// 5 requests so far; 29 runtimes of three make 92, a 30th would make 95.
	at := t0.Add(OnScreenEvery + time.Second)
	if p := s.Plan(at, "", runtimes(30)); len(p) != 29 {
		t.Fatalf("%d polls planned at 92 of the others' %d requests, want 29", len(p), MaxPerMinute-SelectedReserve)
	}
	if p := s.Plan(at, "sel", []string{"sel"}); len(p) != 1 || p[0].Requests() != 3 {
		t.Errorf("the selected runtime was refused its reserve: %+v", p)
	}
}

// A runtime selected right after another had its full minute waits until
// the minute's oldest requests leave it: a new selection never sends
// more than MaxPerMinute requests in a minute.
func TestSchedulerNewSelectionWaitsForTheBudget(t *testing.T) {
	s := NewScheduler()
	screen := append(runtimes(48), "a")
	if p := s.Plan(t0, "a", screen); len(p) != 32 { // a, then 31 others of three: 93
		t.Fatalf("%d polls at first, want 32", len(p))
	}
	for k := 1; k < 12; k++ { // a every 5 s, its terminals every 30 s: 26 requests of its own
		at := t0.Add(time.Duration(k) * SelectedEvery)
		s.Done("a", at, OutcomeOK, OutcomeOK)
		if p := s.Plan(at, "a", screen); len(p) != 1 || p[0].Runtime != "a" {
			t.Fatalf("at %v: %+v, want a", at.Sub(t0), p)
		}
	}
	at, screen := t0.Add(56*time.Second), append(screen, "b")
	if p := s.Plan(at, "b", screen); len(p) != 0 {
		t.Fatalf("b polled with 119 requests sent in the last minute: %+v", p)
	}
	if next, ok := s.Next(at, "b", screen); !ok || !next.Equal(t0.Add(time.Minute)) {
		t.Errorf("Next %v %v, want when the first requests leave the minute", next.Sub(t0), ok)
	}
	if p := s.Plan(t0.Add(time.Minute), "b", screen); len(p) == 0 || p[0].Runtime != "b" {
		t.Errorf("b not polled once the minute has room: %+v", p)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
