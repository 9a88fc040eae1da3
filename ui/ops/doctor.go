package ops

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/auth"
	"github.com/colabdash/colabdash/api/client"
)

// CheckStatus is the outcome of one doctor check, a stable word of the
// --json document.
type CheckStatus string

// The outcomes of a check. Only CheckWarn and CheckFail keep the doctor
// from passing; CheckNotOffered is a route a runtime's server does not
// have that colabdash can do without (a stock Jupyter has none of
// Colab's own routes), CheckSkipped a check that could not run because
// an earlier one failed or there was nothing to check.
const (
	CheckOK         CheckStatus = "ok"
	CheckWarn       CheckStatus = "warn"
	CheckFail       CheckStatus = "fail"
	CheckSkipped    CheckStatus = "skipped"
	CheckNotOffered CheckStatus = "not offered"
)

// Check is one finding of Doctor: Name says what was checked
// ("credentials", "token", "quota project", "clock", "endpoint", "tools",
// "calls", "runtime", "route /api/contents"…); Detail what was found, one
// line; Fix what to do, one line, only when Status is CheckWarn or
// CheckFail. Detail and Fix may quote the server and the environment:
// they are untrusted text, shown through the one sanitizing and redacting
// output path.
type Check struct {
	Name   string      `json:"name" jsonschema:"what was checked, e.g. credentials, token, clock, endpoint, tools, calls, quota project, runtime, route /api/contents"`
	Status CheckStatus `json:"status" jsonschema:"ok, warn, fail, skipped or not offered; only warn and fail keep the doctor from passing"`
	Detail string      `json:"detail" jsonschema:"what was found, one line"`
	Fix    string      `json:"fix,omitempty" jsonschema:"what to do, one line; only with warn and fail"`
}

// MaxClockSkew is how far this machine's clock may be from the server's
// Date header before the clock check warns: signed JWTs (service
// accounts) are refused past a few minutes, and every expireTime
// countdown is off by the skew.
const MaxClockSkew = 2 * time.Minute

// DoctorInput is what Doctor checks: the connection a command would use.
type DoctorInput struct {
	// Endpoint is the MCP endpoint URL.
	Endpoint string
	// Demo is the embedded emulator: no Google credentials are involved.
	Demo bool
	// Creds are the credentials found, nil with CredsErr (their failure,
	// an *auth.Error) or in Demo.
	Creds    *auth.Credentials
	CredsErr error
	// MCP is the client the checks of the server go through, and Svc the
	// same connection as the commands use it (logged); both nil when
	// credentials failed.
	MCP *client.Client
	Svc api.Service
	// Probe sends the clock check's HEAD to Endpoint. It must carry no
	// credentials (nil: a client with a 10 s timeout and safehttp's
	// redirect policy).
	Probe *http.Client
	// Jupyter are the options of the runtime's Jupyter client (its
	// redactor learns the proxy token).
	Jupyter JupyterOptions
	// Now is the local clock (nil: time.Now).
	Now func() time.Time
}

// Findings are Doctor's checks in order, with what a bug report needs
// besides: the negotiated MCP protocol version ("" when none), the
// runtime whose routes were checked ("" when none) and the server's
// tools/list as it came (nil when it failed).
type Findings struct {
	Checks   []Check
	Protocol string
	Runtime  string
	Tools    []json.RawMessage
}

// Passed reports whether every check is ok, skipped or not offered.
func (f Findings) Passed() bool {
	for _, c := range f.Checks {
		if c.Status == CheckWarn || c.Status == CheckFail {
			return false
		}
	}
	return true
}

// Doctor runs, in order, what a first contact with Colab depends on: the
// credentials and where they come from, an access token (its scope and
// expiry), the clock against the server's Date header, the endpoint
// answering MCP (and the protocol version), the tools it lists against
// the ten this client calls and the arguments it sends, a read call
// (list_runtimes), the quota project, and for the first listed runtime
// which of its proxy routes answer. A check that cannot run after an
// earlier failure is CheckSkipped. Doctor changes nothing on the account
// (it reads; the terminal check opens and closes one terminal
// connection) and prints nothing. ctx bounds the whole.
func Doctor(ctx context.Context, in DoctorInput) Findings {
	if in.Now == nil {
		in.Now = time.Now
	}
	var f Findings
	add := func(c Check) { f.Checks = append(f.Checks, c) }
	add(credentialsCheck(in))
	add(tokenCheck(ctx, in))
	add(clockCheck(ctx, in))
	ep, proto := endpointCheck(ctx, in)
	add(ep)
	f.Protocol = proto
	tools, raw := toolsCheck(ctx, in, ep.Status == CheckOK)
	add(tools)
	f.Tools = raw
	calls, rts, callsErr := callsCheck(ctx, in, ep.Status == CheckOK)
	add(calls)
	add(quotaCheck(in, calls, callsErr))
	if calls.Status != CheckOK {
		add(skipped("runtime", "list_runtimes did not answer"))
		return f
	}
	routes, name := routeChecks(ctx, in, rts)
	f.Runtime = name
	for _, c := range routes {
		add(c)
	}
	return f
}

// explain words a failure as the commands do: auth.Explain's headline
// and fix for credentials and permission, else the error in one line.
func explain(err error, creds *auth.Credentials) (detail, fix string) {
	if h, fx := auth.Explain(err, creds); h != "" {
		return api.OneLine(h, 0), fx
	}
	return api.OneLine(err.Error(), 300), ""
}

// failed is a CheckFail of err, worded by explain, with fallbackFix when
// explain has none.
func failed(name string, err error, creds *auth.Credentials, fallbackFix string) Check {
	d, fx := explain(err, creds)
	if fx == "" {
		fx = fallbackFix
	}
	return Check{Name: name, Status: CheckFail, Detail: d, Fix: fx}
}

// skipped is a CheckSkipped saying why.
func skipped(name, why string) Check { return Check{Name: name, Status: CheckSkipped, Detail: why} }
