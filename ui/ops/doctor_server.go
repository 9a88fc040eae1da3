package ops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/client"
	"github.com/colabdash/colabdash/api/plural"
	"github.com/colabdash/colabdash/api/safehttp"
)

// clockProbeTimeout bounds the clock check's one request.
const clockProbeTimeout = 10 * time.Second

// reportFix is the fix of a server that does not offer what this client
// calls: not something the user can change.
const reportFix = "colabdash and the server disagree: run `colabdash doctor --report FILE` and attach FILE to a bug report"

// clockCheck compares this machine's clock with the Date header of the
// endpoint's answer to a HEAD without credentials (any status will do:
// Google answers 401 or 405 with a Date). The skew is measured from the
// middle of the exchange; Date has whole seconds.
func clockCheck(ctx context.Context, in DoctorInput) Check {
	const name = "clock"
	hc := in.Probe
	if hc == nil {
		hc = safehttp.Client(&http.Client{Timeout: clockProbeTimeout})
	}
	ctx, cancel := context.WithTimeout(ctx, clockProbeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, in.Endpoint, nil)
	if err != nil {
		return skipped(name, "no request to the endpoint: "+api.OneLine(err.Error(), 200))
	}
	sent := in.Now()
	resp, err := hc.Do(req)
	if err != nil {
		// Said as it happened: this HEAD is the clock's own, sent even when
		// the endpoint check was skipped (no credentials).
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without `Head "https://…":`, the host is in the cause
		}
		return skipped(name, "no answer to a HEAD for the endpoint's Date header: "+api.OneLine(err.Error(), 200))
	}
	resp.Body.Close()
	got := in.Now()
	date, err := http.ParseTime(resp.Header.Get("Date"))
	if err != nil {
		return skipped(name, "the endpoint's answer has no Date header to compare with")
	}
	mid := sent.Add(got.Sub(sent) / 2)
	skew := date.Sub(mid).Round(time.Second)
	return clockVerdict(skew)
}

// clockVerdict words skew (server's Date minus this machine's clock): a
// warning past MaxClockSkew either way.
func clockVerdict(skew time.Duration) Check {
	c := Check{Name: "clock", Status: CheckOK}
	abs, way := skew, "behind"
	if skew < 0 {
		abs, way = -skew, "ahead of"
	}
	if abs <= time.Second {
		c.Detail = "in step with the server's Date header"
		return c
	}
	c.Detail = fmt.Sprintf("this machine's clock is %s %s the server's Date header", abs, way)
	if abs > MaxClockSkew {
		c.Status = CheckWarn
		c.Fix = "set this machine's clock right (sync it with NTP): token expiries are counted on it, and signed credentials are refused past a few minutes"
	}
	return c
}

// endpointCheck connects to the endpoint (a request is sent: the
// session and tools/list) and says which MCP server answers and the
// protocol version negotiated (also returned).
func endpointCheck(ctx context.Context, in DoctorInput) (Check, string) {
	const name = "endpoint"
	if in.MCP == nil {
		return skipped(name, "no credentials to connect with"), ""
	}
	// Connect sends a request (tools/list) even when the protocol of a
	// stateless endpoint is remembered from an earlier run: the answer is
	// today's, not the memory's.
	err := in.MCP.Connect(ctx)
	var info client.ServerInfo
	if err == nil {
		info, err = in.MCP.ServerInfo(ctx)
	}
	if err != nil {
		fix := "check --endpoint (or the profile's endpoint): " + api.DefaultEndpoint + " is Colab's"
		if api.IsNetworkError(err) {
			fix = "check the network (DNS, a proxy in HTTPS_PROXY) and --endpoint (or the profile's endpoint): " + api.DefaultEndpoint + " is Colab's"
		}
		return failed(name, err, in.Creds, fix), ""
	}
	mode := "stateless"
	if info.Stateful {
		mode = "stateful session"
	}
	d := fmt.Sprintf("%s answers MCP: %s %s, protocol %s (%s)", in.Endpoint, info.Name, info.Version, info.ProtocolVersion, mode)
	return Check{Name: name, Status: CheckOK, Detail: d}, info.ProtocolVersion
}

// toolsCheck compares the server's tools/list with the ten tools this
// client calls and the arguments it sends (client.CheckTools), and
// returns the list as it came, for a report.
func toolsCheck(ctx context.Context, in DoctorInput, connected bool) (Check, []json.RawMessage) {
	const name = "tools"
	if !connected {
		return skipped(name, "the endpoint did not answer"), nil
	}
	tools, err := in.MCP.Tools(ctx)
	if err != nil {
		return failed(name, err, in.Creds, reportFix), nil
	}
	raw, _ := in.MCP.ToolsJSON(ctx)
	declared := map[string][]string{}
	for _, t := range tools {
		declared[t.Name] = t.Properties
	}
	got := client.CheckTools(tools)
	var problems []string
	if len(got.Missing) > 0 {
		problems = append(problems, "not listed: "+strings.Join(got.Missing, ", "))
	}
	for _, a := range got.Undeclared {
		problems = append(problems, fmt.Sprintf("%s does not declare %s, which colabdash sends (declared: %s)",
			a.Tool, a.Name, orNone(declared[a.Tool])))
	}
	var dropped []string
	for _, a := range got.Dropped {
		dropped = append(dropped, a.Tool+"."+a.Name)
	}
	if len(problems) > 0 {
		return Check{Name: name, Status: CheckFail, Detail: strings.Join(problems, "; "), Fix: reportFix}, raw
	}
	d := fmt.Sprintf("%d listed; the %d colabdash calls are there with every argument it sends", len(tools), len(api.ToolNames()))
	if len(dropped) > 0 {
		d += "; not declared, so left out: " + strings.Join(dropped, ", ")
	}
	return Check{Name: name, Status: CheckOK, Detail: d}, raw
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// callsCheck makes one read call, list_runtimes: a server can list its
// tools and still refuse every call (an account or project that is not
// allowlisted, a quota project refused).
func callsCheck(ctx context.Context, in DoctorInput, connected bool) (Check, []api.Runtime, error) {
	const name = "calls"
	if !connected {
		return skipped(name, "the endpoint did not answer"), nil, nil
	}
	rts, err := in.Svc.ListRuntimes(ctx)
	if err != nil {
		c := failed(name, err, in.Creds, "")
		c.Detail = "list_runtimes: " + c.Detail
		if c.Fix == "" {
			c.Fix = "see docs/real-account.md: the Colab API is offered to allowlisted accounts"
		}
		return c, nil, err
	}
	return Check{Name: name, Status: CheckOK, Detail: "list_runtimes answered: " + plural.Count(len(rts), "runtime")}, rts, nil
}
