package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/auth"
	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/ui"
	"github.com/colabdash/colabdash/ui/cli/kit"
	runcmd "github.com/colabdash/colabdash/ui/cli/run"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/theme"
)

// runDashboard opens the interactive dashboard. Without credentials it
// shows what was tried and how to fix it, with a key to continue in demo
// mode. Once it has quit, what a quit anyway left in flight (console code
// still running, a create sent, a cancelled transfer) is said on stderr
// (the command's redacting stream).
func runDashboard(ctx context.Context, g kit.Globals, stderr io.Writer) error {
	if !kit.IsTerminal(os.Stdout) {
		// The dashboard's "not a terminal" message, naming the status command with this
		// command's server and account flags.
		return &kit.ExitError{Code: kit.ExitUsage, Msg: "the dashboard needs a terminal and stdout is not one; use `" +
			g.CommandOr("colabdash status", "status") + "` (or `status --json`) in scripts and pipes"}

	}
	// The theme query (up to theme.DetectTimeout on a terminal that never
	// answers) runs beside the connection and the first calls; only the
	// program, which takes the terminal over, waits for it.
	noColor, resolved := startColour(g.Color, g.ThemeName(), theme.DetectTheme)
	// Whatever ends the dashboard, the query first restores the terminal's
	// mode (it holds it raw while it waits).
	defer resolved()
	theme.ConfigureColor(noColor)
	conn, err := kit.Connect(ctx, g)
	if err != nil {
		var ae *auth.Error
		if !errors.As(err, &ae) {
			return kit.Classify(err, nil)
		}
		info := authScreen(ae, noColor)
		info.Keymap = g.Keys
		resolved() // the query's raw mode and read end before Bubble Tea's
		final, runErr := ui.Run(ui.NewAuthError(info), programSignals(ctx)...)
		if runErr != nil {
			return dashboardEnded(ctx, runErr)
		}
		if m, ok := final.(interface{ WantsDemo() bool }); !ok || !m.WantsDemo() {
			// Printed on the normal screen, where a long login command can
			// be copied whole.
			return kit.Classify(err, nil)
		}
		if conn, err = kit.ConnectDemo(ctx, g.Logs); err != nil {
			return err
		}
		g.Demo, g.Profile = true, g.Settings.Profiles[config.ProfileDemo]
	}
	defer conn.Close()
	o := dashboardOptions(g)
	o.Service, o.Endpoint, o.Demo, o.NoColor, o.Context = conn.Svc, conn.Endpoint, g.Demo, noColor, ctx
	o.ReadOnly, o.StateDir = g.ReadOnly, ops.StateDir()
	if g.Changed("renew-lead") {
		o.RenewLead = g.RenewLead // the flag beats the config file
	}
	o.Theme = theme.Dark // until the terminal has answered (SetTheme)
	o.Notices = runcmd.DashboardLeftovers(ctx, g, conn)
	// Resources and kernels through each runtime's proxy, with the proxy
	// token only; errors go through the same redactor.
	o.Monitor = apimon.New(apimon.Options{Redactor: g.Logs.Red})
	m := ui.New(o)
	m.StartCalls()
	m.SetTheme(resolved()) // before the first frame: no frame in the wrong theme
	final, err := ui.Run(m, programSignals(ctx)...)
	if m, ok := final.(interface{ Service() api.Service }); ok && m.Service() != nil {
		m.Service().Close() // the last profile's connection
	}
	if m, ok := final.(interface{ LeftBehind() []string }); ok {
		for _, l := range m.LeftBehind() {
			fmt.Fprintln(stderr, "colabdash: "+l)
		}
	}
	if err != nil {
		return dashboardEnded(ctx, err)
	}
	return nil
}

// programSignals are the Bubble Tea options of the dashboard's programs:
// the signals are runStreamsContext's (watchSignals), not Bubble Tea's,
// which turned SIGTERM into a quit like q's (exit 0); ctx's end, what the
// first of them does, kills the program, which restores the terminal.
func programSignals(ctx context.Context) []tea.ProgramOption {
	return []tea.ProgramOption{tea.WithContext(ctx), tea.WithoutSignalHandler()}
}

// dashboardEnded is the exit for a dashboard program that returned err:
// a signal (ctx's cause, or SIGHUP as ui.Run reports it) is
// exitInterrupted or 129, which the exit code makes 128 + the signal;
// anything else is a failure (exit 1).
func dashboardEnded(ctx context.Context, err error) error {
	var sc kit.SignalCause
	switch {
	case errors.Is(err, ui.ErrHangup):
		return &kit.ExitError{Code: 128 + int(syscall.SIGHUP), Msg: err.Error()}
	case errors.As(context.Cause(ctx), &sc):
		return &kit.ExitError{Code: kit.ExitInterrupted, Msg: sc.Error()}
	case errors.Is(err, tea.ErrInterrupted):
		return &kit.ExitError{Code: kit.ExitInterrupted, Msg: "interrupted"}
	}
	return &kit.ExitError{Code: kit.ExitFailure, Msg: err.Error()}
}

// colourSettings decides, before Bubble Tea owns the terminal, whether the
// dashboard draws colour and with which theme (theme.Dark or
// theme.Light when theme is config.ThemeAuto, else theme). --color never,
// or without --color always or CLICOLOR_FORCE, NO_COLOR set to any
// non-empty value or CLICOLOR=0 turns colour off (theme.ColorOn on a
// terminal, mode being --color), and then the terminal is never queried
// for its background (the theme is irrelevant); otherwise "auto" asks
// detect (theme.DetectTheme, a bounded wait).
func colourSettings(mode, name string, detect func() string) (noColor bool, resolved string) {
	noColor = !theme.ColorOn(mode, true, os.Getenv)
	if name != config.ThemeAuto {
		return noColor, name
	}
	if noColor {
		return true, theme.Dark
	}
	return false, detect()
}

// startColour is colourSettings with the terminal's answer awaited
// apart: detect (when colourSettings asks for it) runs in a goroutine of
// its own from now, and resolved waits for its theme (at once when
// nothing is detected). resolved may be called any number of times.
func startColour(mode, name string, detect func() string) (noColor bool, resolved func() string) {
	ch := make(chan string, 1)
	asked := false
	noColor, known := colourSettings(mode, name, func() string {
		asked = true
		go func() { ch <- detect() }()
		return ""
	})
	if !asked {
		ch <- known
	}
	return noColor, sync.OnceValue(func() string { return <-ch })
}

// dashboardOptions carries the config's settings into the dashboard.
func dashboardOptions(g kit.Globals) ui.Options {
	s := g.Settings
	budget := s.CallBudget
	switch {
	case s.Line("callBudget") == 0:
		budget = 0 // not set: the dashboard's default, which grows with a short refreshInterval
	case budget == 0:
		budget = -1 // callBudget: 0 is no limit
	}
	return ui.Options{
		CallBudget:        budget,
		RefreshInterval:   s.RefreshInterval,
		ExpiringThreshold: s.ExpiryWarning,
		RenewLead:         s.RenewLead,
		NoAutoRenew:       !s.AutoRenew,
		DefaultSpec:       s.DefaultRuntimeSpec,
		Keymap:            g.Keys,
		Plugins:           s.Plugins,
		Theme:             g.ThemeName(),
		Profile:           g.Profile.Name,
		Profiles:          s.ProfileNames(),
		Redact:            g.Logs.Red.Redact,
		Notify:            s.Notify,
		IdleGuard:         s.GuardFor,
		Connect: func(ctx context.Context, name string) (api.Service, ui.ConnInfo, error) {
			p, ok := s.Profiles[name]
			if !ok {
				return nil, ui.ConnInfo{}, fmt.Errorf("profile %q is not defined", name)
			}
			c, err := kit.ConnectProfile(ctx, p, kit.ProfileAuthOrigin(s, p), g.Logs)
			if err != nil {
				return nil, ui.ConnInfo{}, errors.New(kit.Classify(err, nil).Msg)
			}
			return c.Svc, ui.ConnInfo{Endpoint: c.Endpoint, Demo: p.Credentials == config.CredentialsDemo}, nil
		},
	}
}

// authScreen says what was tried and how to fix it, the login command on a
// line of its own so it can be copied whole.
func authScreen(ae *auth.Error, noColor bool) ui.AuthErrorInfo {
	info := ui.AuthErrorInfo{Headline: ae.Error(), Tried: ae.Tried, NoColor: noColor}
	if ae.Kind == auth.KindNoCredentials {
		info.Headline = "No Google credentials found"
		info.Fix = []string{
			"Sign in with the Colab scope (Application Default Credentials):",
			"  gcloud auth application-default login \\",
			"    --scopes=" + auth.ColabScope + "," + auth.CloudPlatformScope,
			"or pass --credentials FILE (authorized_user or service_account JSON),",
			"or pass --access-token-file FILE (a bearer token).",
		}
		return info
	}
	if ae.Fix != "" {
		info.Fix = []string{ae.Fix}
	}
	return info
}
