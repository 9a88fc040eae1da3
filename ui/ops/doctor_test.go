package ops

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/auth"
	"github.com/colabdash/colabdash/api/client"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/colabfaketest"
	"github.com/colabdash/colabdash/api/colabfake/realjupyter"
	"github.com/colabdash/colabdash/ui/ops/opstest"
)

// doctorOn runs Doctor against a new emulator started with o and faults
// injected, with the credentials of the environment (opstest.ADC).
func doctorOn(t *testing.T, o colabfake.Options, faults ...colabfake.Fault) Findings {
	t.Helper()
	if o.Seed == "" {
		o.Seed = colabfake.SeedDemo
	}
	srv, ep := colabfaketest.Start(t, o)
	for _, f := range faults {
		srv.Inject(f)
	}
	in := doctorInput(t, ep, client.Options{Redactor: &api.Redactor{}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return Doctor(ctx, in)
}

// doctorInput is Doctor's input for the endpoint ep with the credentials
// of the environment: an MCP client of ep (co's retries and redactor)
// that authorizes with them (opstest.Client), closed when t ends; no
// client when loading them failed (CredsErr says why).
func doctorInput(t *testing.T, ep string, co client.Options) DoctorInput {
	t.Helper()
	in := DoctorInput{Endpoint: ep, Jupyter: JupyterOptions{Redactor: co.Redactor}}
	in.Creds, in.CredsErr = auth.New(context.Background(), auth.Options{Redactor: co.Redactor})
	if in.CredsErr != nil {
		return in
	}
	c := opstest.Client(t, ep, in.Creds.Transport(client.NewTransport()), co)
	in.MCP, in.Svc = c, c
	return in
}

// check returns the check named name, failing the test when there is none.
func check(t *testing.T, f Findings, name string) Check {
	t.Helper()
	for _, c := range f.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %q in %+v", name, f.Checks)
	return Check{}
}

func wantStatus(t *testing.T, f Findings, name string, want CheckStatus, detail ...string) Check {
	t.Helper()
	c := check(t, f, name)
	if c.Status != want {
		t.Errorf("%s: %s (%s; fix %q), want %s", name, c.Status, c.Detail, c.Fix, want)
	}
	for _, d := range detail {
		if !strings.Contains(c.Detail, d) {
			t.Errorf("%s: detail %q lacks %q", name, c.Detail, d)
		}
	}
	if (want == CheckFail || want == CheckWarn) && c.Fix == "" {
		t.Errorf("%s: %s without a fix line", name, want)
	}
	return c
}

// TestDoctorPassesOnTheEmulator: a healthy account on the full emulator
// passes every check, with the protocol named and Colab's routes
// answering.
func TestDoctorPassesOnTheEmulator(t *testing.T) {
	path := opstest.ADC(t, auth.ColabScope+" "+auth.CloudPlatformScope, "my-quota-proj")
	f := doctorOn(t, colabfake.Options{Stateless: true})
	if !f.Passed() {
		t.Errorf("did not pass: %+v", f.Checks)
	}
	wantStatus(t, f, "credentials", CheckOK, "ADC "+path, "authorized_user", "GOOGLE_APPLICATION_CREDENTIALS")
	wantStatus(t, f, "token", CheckOK, "Colab scope granted", "expires in 1h0m0s")
	wantStatus(t, f, "quota project", CheckOK, "my-quota-proj (from "+path+")")
	wantStatus(t, f, "endpoint", CheckOK, "protocol 2026-07-28")
	wantStatus(t, f, "tools", CheckOK, "10 listed")
	wantStatus(t, f, "calls", CheckOK, "3 runtimes")
	wantStatus(t, f, "route /api/contents", CheckOK)
	wantStatus(t, f, "route /api/kernels", CheckOK)
	wantStatus(t, f, "route /api/colab/resources", CheckOK)
	wantStatus(t, f, "route /colab/tty", CheckOK)
	if f.Protocol != "2026-07-28" || f.Runtime != "runtimes/rt-t4demo7k2p" || len(f.Tools) != 10 {
		t.Errorf("protocol %q, runtime %q, %d raw tools", f.Protocol, f.Runtime, len(f.Tools))
	}
}

// TestDoctorNamesAMissingTool: a server that does not list execute_code
// fails the tools check, which names it.
func TestDoctorNamesAMissingTool(t *testing.T) {
	opstest.ADC(t, auth.ColabScope, "p-quota")
	f := doctorOn(t, colabfake.Options{OmitTools: []string{api.ToolExecuteCode}})
	wantStatus(t, f, "tools", CheckFail, "not listed: execute_code")
	if f.Passed() {
		t.Error("passed with a tool missing")
	}
}

// TestDoctorNamesARenamedInputField: a schema that renamed delete_session's
// name fails the tools check, naming the argument colabdash sends and
// what the server declares instead.
func TestDoctorNamesARenamedInputField(t *testing.T) {
	opstest.ADC(t, auth.ColabScope, "p-quota")
	f := doctorOn(t, colabfake.Options{RenamedInputs: map[string]string{api.ToolDeleteSession + ".name": "sessionName"}})
	wantStatus(t, f, "tools", CheckFail, "delete_session does not declare name, which colabdash sends (declared: sessionName)")
}

// TestDoctorWarnsOfASkewedClock: a server Date 5 minutes ahead is a
// warning naming the skew; 30 s is within bounds.
func TestDoctorWarnsOfASkewedClock(t *testing.T) {
	opstest.ADC(t, auth.ColabScope, "p-quota")
	f := doctorOn(t, colabfake.Options{DateSkew: 5 * time.Minute})
	// Date has whole seconds: the skew is told within one.
	c := wantStatus(t, f, "clock", CheckWarn, "behind the server's Date header")
	if !strings.Contains(c.Detail, "4m59s") && !strings.Contains(c.Detail, "5m0s") && !strings.Contains(c.Detail, "5m1s") {
		t.Errorf("clock detail %q does not say about 5m", c.Detail)
	}
	if f.Passed() {
		t.Error("passed with a skewed clock")
	}
	f = doctorOn(t, colabfake.Options{DateSkew: -30 * time.Second})
	c = wantStatus(t, f, "clock", CheckOK, "ahead of")
	if !strings.Contains(c.Detail, "29s") && !strings.Contains(c.Detail, "30s") && !strings.Contains(c.Detail, "31s") {
		t.Errorf("clock detail %q does not say about 30s", c.Detail)
	}
}

// TestDoctorStockJupyterLacksColabRoutes: behind a stock jupyter-server,
// the Jupyter routes answer and Colab's own are "not offered", which is
// no failure of colabdash's.
func TestDoctorStockJupyterLacksColabRoutes(t *testing.T) {
	opstest.ADC(t, auth.ColabScope, "p-quota")
	jup := realjupyter.Require(t, realjupyter.Options{})
	f := doctorOn(t, colabfake.Options{JupyterUpstream: jup.URL})
	wantStatus(t, f, "route /api/contents", CheckOK)
	wantStatus(t, f, "route /api/kernels", CheckOK)
	wantStatus(t, f, "route /api/colab/resources", CheckNotOffered, "stock Jupyter")
	wantStatus(t, f, "route /colab/tty", CheckNotOffered, "colabdash shell")
	if !f.Passed() {
		t.Errorf("a stock Jupyter failed the doctor: %+v", f.Checks)
	}
}

// TestDoctorCredentialFailures: a GOOGLE_APPLICATION_CREDENTIALS naming a
// missing file fails with the product's hint and skips the server
// checks; a token without the Colab scope fails with the login command;
// user credentials without a quota project pass when the server answers.
func TestDoctorCredentialFailures(t *testing.T) {
	opstest.ADC(t, auth.ColabScope, "")
	missing := filepath.Join(t.TempDir(), "gone.json")
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", missing)
	f := doctorOn(t, colabfake.Options{})
	c := wantStatus(t, f, "credentials", CheckFail, missing)
	if !strings.Contains(c.Detail+c.Fix, "GOOGLE_APPLICATION_CREDENTIALS") {
		t.Errorf("credentials: %q / %q does not name GOOGLE_APPLICATION_CREDENTIALS", c.Detail, c.Fix)
	}
	wantStatus(t, f, "endpoint", CheckSkipped)
	wantStatus(t, f, "calls", CheckSkipped)

	opstest.ADC(t, auth.CloudPlatformScope, "")
	f = doctorOn(t, colabfake.Options{})
	c = wantStatus(t, f, "token", CheckFail, "lack the Colab scope", auth.CloudPlatformScope)
	if !strings.Contains(c.Fix, auth.LoginCommand) {
		t.Errorf("token fix %q lacks %q", c.Fix, auth.LoginCommand)
	}
	wantStatus(t, f, "quota project", CheckOK, "none set, and the server answered without one")
}

// TestClockVerdictBounds: the warning starts past MaxClockSkew, either way.
func TestClockVerdictBounds(t *testing.T) {
	for skew, want := range map[time.Duration]CheckStatus{
		0: CheckOK, MaxClockSkew: CheckOK, -MaxClockSkew: CheckOK,
		MaxClockSkew + time.Second: CheckWarn, -MaxClockSkew - time.Second: CheckWarn,
	} {
		if got := clockVerdict(skew).Status; got != want {
			t.Errorf("clockVerdict(%v) = %s, want %s", skew, got, want)
		}
	}
}

// TestDoctorEndpointNotAnswering: nothing listens at the endpoint: the
// endpoint check fails with a fix naming the network and the endpoint setting, and the
// checks that need its answers are skipped rather than failed again.
func TestDoctorEndpointNotAnswering(t *testing.T) {
	opstest.ADC(t, auth.ColabScope, "p-quota")
	srv, ep, err := colabfake.Start(context.Background(), "127.0.0.1:0", colabfake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_ = srv.Close() // the port no longer answers
	in := doctorInput(t, ep, client.Options{MaxAttempts: 1})
	if in.CredsErr != nil {
		t.Fatal(in.CredsErr)
	}
	f := Doctor(context.Background(), in)
	ec := wantStatus(t, f, "endpoint", CheckFail)
	if !strings.Contains(ec.Fix, "--endpoint") || !strings.Contains(ec.Fix, "check the network (DNS, a proxy") {
		t.Errorf("endpoint fix %q does not name the network and --endpoint", ec.Fix)
	}
	// The clock's own HEAD is said as what happened, with its cause.
	if cc := wantStatus(t, f, "clock", CheckSkipped); !strings.Contains(cc.Detail, "no answer to a HEAD") || !strings.Contains(cc.Detail, "connection refused") || strings.Contains(cc.Detail, "Head \"") {
		t.Errorf("clock: %q", cc.Detail)
	}
	wantStatus(t, f, "tools", CheckSkipped)
	wantStatus(t, f, "calls", CheckSkipped)
	wantStatus(t, f, "runtime", CheckSkipped)
	if f.Passed() {
		t.Error("passed with no endpoint")
	}
}

// TestDoctorWithoutARuntime: an account with no runtime passes, the
// route checks replaced by one skipped line that says how to get one.
func TestDoctorWithoutARuntime(t *testing.T) {
	opstest.ADC(t, auth.ColabScope, "p-quota")
	f := doctorOn(t, colabfake.Options{Seed: colabfake.SeedEmpty})
	wantStatus(t, f, "calls", CheckOK, "0 runtimes")
	wantStatus(t, f, "runtime", CheckSkipped, "colabdash create")
	if !f.Passed() || f.Runtime != "" {
		t.Errorf("passed %v, runtime %q: %+v", f.Passed(), f.Runtime, f.Checks)
	}
}

// The quota project is blamed only when list_runtimes failed for want of
// one: a server that does not offer the tool, or refuses for another
// reason, leaves it skipped with the calls check naming the failure; a
// disabled service (what Google answers without a quota project) warns
// with the login hint.
func TestDoctorBlamesTheQuotaProjectOnlyForItsOwnError(t *testing.T) {
	opstest.ADC(t, auth.ColabScope, "")
	for _, c := range []struct {
		fault colabfake.Fault
		want  CheckStatus
	}{
		{colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: "list_runtimes", Status: 403, Times: -1,
			Body: colabfake.GoogleErrorText(api.PermissionDenied, "The caller does not have permission", "", 0)}, CheckSkipped},
		{colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: "list_runtimes", Status: 501, Times: -1,
			Body: colabfake.GoogleErrorText(api.Unimplemented, "not offered here", "", 0)}, CheckSkipped},
		{colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: "list_runtimes", Status: 403, Times: -1,
			Body: colabfake.GoogleErrorText(api.PermissionDenied, "Colab API has not been used in project 1 before or it is disabled.", api.ReasonServiceDisabled, 0)}, CheckWarn},
	} {
		f := doctorOn(t, colabfake.Options{}, c.fault)
		wantStatus(t, f, "calls", CheckFail)
		wantStatus(t, f, "quota project", c.want)
	}
}
