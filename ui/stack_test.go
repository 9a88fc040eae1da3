package ui

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/client"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/secrettest"
	"github.com/colabdash/colabdash/ui/poll"
)

// The whole stack under test: the dashboard model, the real MCP client and
// the emulator on loopback, on one fake clock. Used by the fault matrix,
// the soak test and the benchmarks.

// stackOAuthToken is the bearer token the stack's client sends; the
// secret-scan test looks for it in everything the program writes.
const stackOAuthToken = "ya29.OAUTH-SECRET-7f3a9c"

type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

type stack struct {
	srv *colabfake.Server
	clk *colabfake.Clock
	cli *client.Client
	m   Model

	width  int
	ownSrv bool

	mu     sync.Mutex
	sleeps []time.Duration // client backoff waits (not slept)
	ticks  int
}

type stackOpts struct {
	emu      colabfake.Options
	ui       Options
	attempts int
	realTime bool // use time.Now and real client sleeps (benchmarks)
	width    int  // terminal width (default 160; height 48)
	logger   *slog.Logger
	bearer   string        // bearer token sent (default stackOAuthToken)
	redactor *api.Redactor // the client's Redactor (default: its own)
	// clientOnly: the emulator and the client, no dashboard (for what
	// only the client's answer shows; start, tick and view are not used).
	clientOnly bool
}

// newStack starts the emulator (runtime limit and create quota off unless
// set) and builds the client and, unless o.clientOnly, the model (160×48,
// NoColor). Ticks are
// not scheduled by the model: the test sends them with tick().
func newStack(t testing.TB, o stackOpts) *stack {
	t.Helper()
	s := &stack{clk: colabfake.NewClock(t0)}
	if o.emu.RuntimeLimit == 0 {
		o.emu.RuntimeLimit = -1
	}
	if o.emu.CreatesPerMinute == 0 {
		o.emu.CreatesPerMinute = -1
	}
	if !o.realTime && o.emu.Now == nil {
		o.emu.Now = s.clk.Now
	}
	srv, ep, err := colabfake.Start(context.Background(), "127.0.0.1:0", o.emu)
	if err != nil {
		t.Fatal(err)
	}
	s.srv, s.ownSrv = srv, true
	s.build(t, ep, o)
	return s
}

// newStackAt builds a client and model on a running emulator (which the
// stack does not close).
func newStackAt(t testing.TB, srv *colabfake.Server, ep string, o stackOpts) *stack {
	s := &stack{clk: colabfake.NewClock(t0), srv: srv}
	s.build(t, ep, o)
	return s
}

func (s *stack) build(t testing.TB, ep string, o stackOpts) {
	t.Helper()
	if o.attempts == 0 {
		o.attempts = 3
	}
	bearer := stackOAuthToken
	if o.bearer != "" {
		bearer = o.bearer
	}
	if o.redactor == nil && !o.realTime {
		// The redactor forgets a proxy token some time after its
		// expireTime: on the stack's fake clock, as the model reads it,
		// so hours of fake time forget what real hours would.
		o.redactor = &api.Redactor{}
		o.redactor.SetClock(s.clk.Now)
	}
	copts := client.Options{
		Endpoint:    ep,
		HTTPClient:  &http.Client{Transport: bearerTransport{bearer}},
		MaxAttempts: o.attempts,
		BaseDelay:   time.Millisecond,
		Logger:      o.logger,
		Redactor:    o.redactor,
	}
	if !o.realTime {
		copts.Sleep = func(ctx context.Context, d time.Duration) error {
			s.mu.Lock()
			s.sleeps = append(s.sleeps, d)
			s.mu.Unlock()
			return ctx.Err()
		}
	}
	cli, err := client.New(context.Background(), copts)
	if err != nil {
		t.Fatal(err)
	}
	s.cli = cli
	if o.clientOnly {
		t.Cleanup(s.close)
		return
	}
	uo := o.ui
	uo.Service = cli
	if uo.Now == nil && !o.realTime {
		uo.Now = s.clk.Now
	}
	uo.Location = time.UTC
	uo.NoColor = true
	s.m = New(uo)
	s.m.life.every = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	if o.width == 0 {
		o.width = 160
	}
	s.width = o.width
	s.m, _ = update(s.m, tea.WindowSizeMsg{Width: o.width, Height: 48})
	t.Cleanup(s.close)
}

func (s *stack) close() {
	if s.m.app != nil {
		s.m.life.cancel()
	}
	s.cli.Close()
	if s.ownSrv {
		s.srv.Close()
	}
}

// drive runs cmd the way tea.Program does (every command in its own
// goroutine, each result fed to Update as soon as it arrives and what
// Update returns started at once), until nothing is left. Ticks the model
// schedules are dropped.
func (s *stack) drive(cmd tea.Cmd) { s.run(cmd, false) }

// run is drive: with all, every answer but a tick is fed to Update (else
// only the calls', polls' and job listings'); it returns the
// notifications told meanwhile.
func (s *stack) run(cmd tea.Cmd, all bool) []notifiedMsg {
	var told []notifiedMsg
	msgs := make(chan tea.Msg)
	pending := 0
	launch := func(c tea.Cmd) {
		if c == nil {
			return
		}
		pending++
		go func() { msgs <- c() }()
	}
	launch(cmd)
	for pending > 0 {
		msg := <-msgs
		pending--
		switch msg.(type) {
		case nil, tickMsg:
			continue
		case tea.BatchMsg:
			for _, c := range msg.(tea.BatchMsg) {
				launch(c)
			}
			continue
		case resultMsg, poll.ResultMsg, jobsListedMsg, jobNotesMsg:
		default:
			if !all {
				continue
			}
		}
		if n, ok := msg.(notifiedMsg); ok {
			told = append(told, n)
		}
		var c tea.Cmd
		s.m, c = update(s.m, msg)
		launch(c)
	}
	return told
}

// start runs Init to completion: tier, specs, runtimes and every
// runtime's sessions are loaded.
func (s *stack) start() { s.drive(s.m.Init()) }

// tick advances the fake clock by d and delivers one tick, running the
// calls it starts to completion.
func (s *stack) tick(d time.Duration) {
	s.clk.Advance(d)
	s.ticks++
	var c tea.Cmd
	s.m, c = update(s.m, tickMsg{gen: s.m.life.tickGen})
	s.drive(c)
}

// press delivers key and runs the calls it starts to completion.
func (s *stack) press(key string) {
	var c tea.Cmd
	s.m, c = update(s.m, keyMsg(key))
	s.drive(c)
}

// idle delivers one tick per second for d.
func (s *stack) idle(d time.Duration) {
	for i := time.Duration(0); i < d; i += time.Second {
		s.tick(time.Second)
	}
}

func (s *stack) view() string { return s.m.View() }

var (
	stackT4  = api.RuntimeSpecKey{Variant: api.VariantGPU, Accelerator: "T4", Shape: api.ShapeStandard}
	stackCPU = api.RuntimeSpecKey{Variant: api.VariantCPU, Accelerator: api.AcceleratorNone, Shape: api.ShapeStandard}
)

// addRuntime adds a ready runtime with a proxy token issued now (TTL).
func (s *stack) addRuntime(t testing.TB, id string, spec api.RuntimeSpecKey) api.Runtime {
	t.Helper()
	rt, err := s.srv.AddRuntime(api.Runtime{Name: id, RuntimeSpec: spec, ConnectionInfo: &api.ConnectionInfo{Token: secrettest.Token(id)}})
	if err != nil {
		t.Fatal(err)
	}
	return rt
}
