package colabfake

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/colabdash/colabdash/api"
)

type schemaJSON struct {
	Type                 string                `json:"type"`
	Properties           map[string]schemaJSON `json:"properties"`
	Required             []string              `json:"required"`
	AdditionalProperties any                   `json:"additionalProperties"`
}

func schemaOf(t *testing.T, v any) schemaJSON {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var s schemaJSON
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func keys(m map[string]schemaJSON) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func listTools(t *testing.T, cs *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		m[tl.Name] = tl
	}
	return m
}

func TestToolsListNamesAndInputSchemas(t *testing.T) {
	_, cs, _ := startConnect(t, Options{})
	tools := listTools(t, cs)
	var names []string
	for n := range tools {
		names = append(names, n)
	}
	sort.Strings(names)
	want := api.ToolNames()
	sort.Strings(want)
	if !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}
	// Documented lowerCamelCase inputs, required marked.
	wantProps := map[string][]string{
		"list_runtime_specs": nil,
		"get_subscription":   nil,
		"list_runtimes":      nil,
		"get_runtime":        {"name"},
		"create_runtime":     {"requestId", "runtime", "runtimeId"},
		"delete_runtime":     {"allowMissing", "name"},
		"create_session":     {"parent", "session", "sessionId"},
		"list_sessions":      {"parent"},
		"delete_session":     {"name"},
		"execute_code":       {"code", "executionId", "runtime", "session"},
	}
	wantRequired := map[string][]string{
		"get_runtime": {"name"}, "create_runtime": {"runtime"}, "delete_runtime": {"name"},
		"create_session": {"parent"}, "list_sessions": {"parent"}, "delete_session": {"name"},
		"execute_code": {"code"},
	}
	for name, props := range wantProps {
		tl := tools[name]
		if tl.Description == "" {
			t.Errorf("%s has no description", name)
		}
		sc := schemaOf(t, tl.InputSchema)
		if sc.Type != "object" {
			t.Errorf("%s input type %q", name, sc.Type)
		}
		if got := keys(sc.Properties); !slices.Equal(got, props) {
			t.Errorf("%s input properties = %v, want %v", name, got, props)
		}
		req := slices.Clone(sc.Required)
		sort.Strings(req)
		if !slices.Equal(req, wantRequired[name]) {
			t.Errorf("%s required = %v, want %v", name, req, wantRequired[name])
		}
		if tl.OutputSchema == nil {
			t.Errorf("%s has no output schema", name)
		}
	}
	cr := schemaOf(t, tools["create_runtime"].InputSchema)
	if got := keys(cr.Properties["runtime"].Properties); !slices.Equal(got, []string{"runtimeSpec", "version"}) {
		t.Errorf("create_runtime runtime properties = %v", got)
	}
	if got := keys(cr.Properties["runtime"].Properties["runtimeSpec"].Properties); !slices.Equal(got, []string{"accelerator", "shape", "variant"}) {
		t.Errorf("runtimeSpec properties = %v", got)
	}
	// Output schema: the documented Runtime fields, none required.
	out := schemaOf(t, tools["get_runtime"].OutputSchema)
	if got := keys(out.Properties["connectionInfo"].Properties); !slices.Equal(got, []string{"expireTime", "token", "url"}) {
		t.Errorf("connectionInfo properties = %v", got)
	}
	if len(out.Required) != 0 {
		t.Errorf("output schema requires %v; proto3 JSON may omit any field", out.Required)
	}
}

func TestSchemaVariants(t *testing.T) {
	_, cs, _ := startConnect(t, Options{LegacySessionIDSchema: true, NoAllowMissing: true})
	tools := listTools(t, cs)
	if got := keys(schemaOf(t, tools["create_session"].InputSchema).Properties); !slices.Equal(got, []string{"parent", "session", "session_id"}) {
		t.Errorf("legacy create_session properties = %v", got)
	}
	if got := keys(schemaOf(t, tools["delete_runtime"].InputSchema).Properties); !slices.Equal(got, []string{"name"}) {
		t.Errorf("delete_runtime without allowMissing: %v", got)
	}
	// A client that ignores the live schema is refused, one that follows it works.
	s := call(t, cs, "create_runtime", createArgs("VARIANT_CPU", "NONE", "SHAPE_STANDARD", ""))
	var rt api.Runtime
	decode(t, s, &rt)
	res := call(t, cs, "create_session", map[string]any{"parent": rt.Name, "sessionId": "dash-1"})
	if !res.IsError || !strings.Contains(text(res), "sessionId") {
		t.Errorf("sessionId against a session_id schema: isError=%v %q", res.IsError, text(res))
	}
	var sess api.Session
	decode(t, call(t, cs, "create_session", map[string]any{"parent": rt.Name, "session_id": "dash-1"}), &sess)
	if sess.Name != rt.Name+"/sessions/dash-1" {
		t.Errorf("legacy session_id gave %q", sess.Name)
	}
	if res := call(t, cs, "delete_runtime", map[string]any{"name": rt.Name, "allowMissing": true}); !res.IsError {
		t.Error("allowMissing accepted although the schema leaves it out")
	}
}

func TestSubscriptionAndSpecsByTier(t *testing.T) {
	s, cs, _ := startConnect(t, Options{})
	cases := []struct {
		tier     api.SubscriptionTier
		eligible []string
		not      []string
	}{
		{api.TierFree, []string{"CPU/STANDARD", "GPU/T4/STANDARD"}, []string{"CPU/HIGHMEM", "GPU/L4/STANDARD", "GPU/A100/STANDARD", "TPU/V6E1/STANDARD", "GPU/H100/STANDARD"}},
		{api.TierPro, []string{"CPU/HIGHMEM", "GPU/L4/STANDARD", "GPU/A100/HIGHMEM", "TPU/V6E1/STANDARD", "TPU/V5E1/STANDARD"}, []string{"GPU/H100/STANDARD"}},
		{api.TierProPlus, []string{"GPU/H100/STANDARD", "GPU/H100/HIGHMEM", "CPU/STANDARD"}, nil},
		{"SUBSCRIPTION_TIER_ULTRA", []string{"GPU/T4/STANDARD"}, []string{"GPU/L4/STANDARD"}},
	}
	for _, c := range cases {
		s.SetTier(c.tier)
		var sub api.Subscription
		decode(t, call(t, cs, "get_subscription", nil), &sub)
		if sub.Tier != c.tier || sub.Name != "subscription" {
			t.Errorf("subscription = %+v, want tier %s", sub, c.tier)
		}
		var specs struct {
			RuntimeSpecs []api.RuntimeSpec `json:"runtimeSpecs"`
		}
		decode(t, call(t, cs, "list_runtime_specs", nil), &specs)
		elig := map[string]bool{}
		for _, sp := range specs.RuntimeSpecs {
			elig[sp.Key.String()] = sp.Eligible
		}
		if len(specs.RuntimeSpecs) != len(catalog) {
			t.Errorf("%s: %d specs, want the full list of %d", c.tier, len(specs.RuntimeSpecs), len(catalog))
		}
		for _, k := range c.eligible {
			if !elig[k] {
				t.Errorf("%s: %s not eligible", c.tier, k)
			}
		}
		for _, k := range c.not {
			if elig[k] {
				t.Errorf("%s: %s eligible", c.tier, k)
			}
		}
	}
}

func TestDemoSeed(t *testing.T) {
	_, cs, clk := startConnect(t, Options{Seed: SeedDemo})
	var sub api.Subscription
	decode(t, call(t, cs, "get_subscription", nil), &sub)
	if sub.Tier != api.TierPro {
		t.Errorf("demo tier %s", sub.Tier)
	}
	var list struct {
		Runtimes []api.Runtime `json:"runtimes"`
	}
	decode(t, call(t, cs, "list_runtimes", nil), &list)
	if len(list.Runtimes) != 3 {
		t.Fatalf("demo has %d runtimes", len(list.Runtimes))
	}
	variants := map[api.Variant]time.Duration{}
	for _, r := range list.Runtimes {
		if r.ConnectionInfo == nil || r.ConnectionInfo.Token == "" || !strings.HasPrefix(r.ConnectionInfo.URL, "http://127.0.0.1:") ||
			!strings.HasSuffix(r.ConnectionInfo.URL, "/proxy/"+r.ID()+"/") {
			// connectionInfo.url is the emulator's own runtime proxy.
			t.Errorf("%s connectionInfo %+v", r.Name, r.ConnectionInfo)
			continue
		}
		variants[r.RuntimeSpec.Variant] = r.ExpireTime().Sub(clk.Now())
	}
	if variants[api.VariantGPU] != 52*time.Minute || variants[api.VariantCPU] != 3*time.Minute || variants[api.VariantTPU] != -30*time.Second {
		t.Errorf("token distances = %v", variants)
	}
	// The token expired 30 s ago; get_runtime renews it.
	var tpu api.Runtime
	decode(t, call(t, cs, "get_runtime", map[string]any{"name": "runtimes/rt-v6edemo2mw"}), &tpu)
	if got := tpu.ExpireTime().Sub(clk.Now()); got != time.Hour {
		t.Errorf("renewed TPU token lives %v, want 1h", got)
	}
	var sessions struct {
		Sessions []api.Session `json:"sessions"`
	}
	decode(t, call(t, cs, "list_sessions", map[string]any{"parent": list.Runtimes[0].Name}), &sessions)
	if len(sessions.Sessions) == 0 || !strings.Contains(sessions.Sessions[0].Name, "/sessions/notebook-") {
		t.Errorf("GPU runtime sessions = %v", sessions.Sessions)
	}
}

func TestTokenExpiryAndRenewal(t *testing.T) {
	_, cs, clk := startConnect(t, Options{TokenTTL: 10 * time.Minute})
	var rt api.Runtime
	decode(t, call(t, cs, "create_runtime", createArgs("VARIANT_GPU", "T4", "SHAPE_STANDARD", uuid.NewString())), &rt)
	if got := rt.ExpireTime(); !got.Equal(t0.Add(10 * time.Minute)) {
		t.Fatalf("new runtime expireTime %v, want now+TTL", got)
	}
	old := rt.ConnectionInfo.Token
	clk.Advance(11 * time.Minute)
	var list struct {
		Runtimes []api.Runtime `json:"runtimes"`
	}
	decode(t, call(t, cs, "list_runtimes", nil), &list)
	if got := list.Runtimes[0]; !got.ExpireTime().Before(clk.Now()) || got.ConnectionInfo.Token != old {
		t.Fatalf("list_runtimes renewed or lost the expired token: %+v", got.ConnectionInfo)
	}
	var got api.Runtime
	decode(t, call(t, cs, "get_runtime", map[string]any{"name": rt.Name}), &got)
	if got.ConnectionInfo.Token == old || got.ConnectionInfo.Token == "" {
		t.Error("get_runtime did not issue a new token")
	}
	if !got.ExpireTime().Equal(clk.Now().Add(10 * time.Minute)) {
		t.Errorf("renewed expireTime %v, want %v", got.ExpireTime(), clk.Now().Add(10*time.Minute))
	}
	if got.ConnectionInfo.URL != rt.ConnectionInfo.URL {
		t.Errorf("URL changed on renewal: %s", got.ConnectionInfo.URL)
	}
}

func TestRuntimeLifecycleAllModes(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			s, cs, _ := startConnect(t, Options{Stateless: m.stateless, JSONResponse: m.jsonr})
			if got := cs.ID() == ""; got != m.stateless {
				t.Errorf("session id %q in stateless=%v", cs.ID(), m.stateless)
			}
			var rt api.Runtime
			decode(t, call(t, cs, "create_runtime", map[string]any{
				"runtime":   map[string]any{"runtimeSpec": map[string]any{"variant": "VARIANT_CPU", "accelerator": "NONE", "shape": "SHAPE_STANDARD"}, "version": "2026.10"},
				"runtimeId": "my-rt-1", "requestId": uuid.NewString()}), &rt)
			if rt.Name != "runtimes/my-rt-1" || rt.Version != "2026.10" || rt.RuntimeSpec.Accelerator != "NONE" {
				t.Fatalf("created %+v", rt)
			}
			var sess api.Session
			decode(t, call(t, cs, "create_session", map[string]any{"parent": rt.Name, "sessionId": "dash-a"}), &sess)
			var again api.Session
			decode(t, call(t, cs, "create_session", map[string]any{"parent": rt.Name, "sessionId": "dash-a"}), &again)
			if sess.Name != "runtimes/my-rt-1/sessions/dash-a" || again != sess {
				t.Fatalf("create_session not create-or-get: %v %v", sess, again)
			}
			var gen api.Session
			decode(t, call(t, cs, "create_session", map[string]any{"parent": rt.Name}), &gen)
			if uuid.Validate(gen.ID()) != nil {
				t.Errorf("server-generated session id %q is not a UUID", gen.ID())
			}
			if e := toolError(t, call(t, cs, "create_session", map[string]any{"parent": rt.Name, "sessionId": "Bad_ID"})); e.Code != api.InvalidArgument {
				t.Errorf("bad session id: %v", e)
			}
			if _, err := s.AddNotebookSession(rt.Name, "notebook-77"); err != nil {
				t.Fatal(err)
			}
			var ls struct {
				Sessions []api.Session `json:"sessions"`
			}
			decode(t, call(t, cs, "list_sessions", map[string]any{"parent": rt.Name}), &ls)
			if len(ls.Sessions) != 3 || ls.Sessions[2].Name != rt.Name+"/sessions/notebook-77" {
				t.Errorf("list_sessions = %v", ls.Sessions)
			}
			decode(t, call(t, cs, "delete_session", map[string]any{"name": sess.Name}), &struct{}{})
			if e := toolError(t, call(t, cs, "delete_session", map[string]any{"name": sess.Name})); e.Code != api.NotFound || e.HTTPStatus != 404 {
				t.Errorf("second delete_session: %v", e)
			}
			decode(t, call(t, cs, "delete_runtime", map[string]any{"name": rt.Name}), &struct{}{})
			if len(s.Runtimes()) != 0 || s.Sessions(rt.Name) != nil {
				t.Error("delete_runtime left the runtime or its sessions")
			}
			if e := toolError(t, call(t, cs, "get_runtime", map[string]any{"name": rt.Name})); e.Code != api.NotFound {
				t.Errorf("get after delete: %v", e)
			}
			if e := toolError(t, call(t, cs, "delete_runtime", map[string]any{"name": rt.Name})); e.Code != api.NotFound {
				t.Errorf("delete missing: %v", e)
			}
			decode(t, call(t, cs, "delete_runtime", map[string]any{"name": rt.Name, "allowMissing": true}), &struct{}{})
			if e := toolError(t, call(t, cs, "list_sessions", map[string]any{"parent": rt.Name})); e.Code != api.NotFound {
				t.Errorf("list_sessions on a gone runtime: %v", e)
			}
			// An empty list is {} (proto3 JSON omits empty repeated fields).
			if res := call(t, cs, "list_runtimes", nil); strings.TrimSpace(text(res)) != "{}" {
				t.Errorf("empty list_runtimes = %s", text(res))
			}
		})
	}
}

// The demo seed's expiries follow the token lifetime, so `colabdash
// emulator --token-ttl 20s` shows short tokens from the start.
func TestDemoSeedFollowsTokenTTL(t *testing.T) {
	now := time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		ttl      time.Duration
		gpu, cpu time.Duration
	}{
		{0, 52 * time.Minute, 3 * time.Minute},
		{20 * time.Second, 52 * 20 * time.Second / 60, 3 * 20 * time.Second / 60},
	} {
		s := New(Options{Seed: SeedDemo, TokenTTL: tc.ttl, Now: func() time.Time { return now }})
		got := map[string]time.Duration{}
		for _, rt := range s.Runtimes() {
			got[rt.ID()] = rt.ExpireTime().Sub(now)
		}
		if got["rt-t4demo7k2p"] != tc.gpu || got["rt-cpudemo4qx"] != tc.cpu || got["rt-v6edemo2mw"] != -30*time.Second {
			t.Errorf("ttl %v: expiries %v", tc.ttl, got)
		}
		s.Close()
	}
}

// --runtimes N adds N runtimes after the seed's, with expiries spread over
// the token lifetime, and serves every one of them through list_runtimes,
// get_runtime and list_sessions.
func TestLoadSeed(t *testing.T) {
	const n = 300
	s, cs, clk := startConnect(t, Options{Seed: SeedDemo, Runtimes: n, TokenTTL: 30 * time.Minute})
	var list struct {
		Runtimes []api.Runtime `json:"runtimes"`
	}
	decode(t, call(t, cs, "list_runtimes", nil), &list)
	if len(list.Runtimes) != 3+n {
		t.Fatalf("%d runtimes listed, want %d", len(list.Runtimes), 3+n)
	}
	var minLeft, maxLeft time.Duration = time.Hour, 0
	for _, r := range list.Runtimes[3:] {
		left := r.ExpireTime().Sub(clk.Now())
		minLeft, maxLeft = min(minLeft, left), max(maxLeft, left)
	}
	if minLeft <= 0 || minLeft > time.Minute || maxLeft != 30*time.Minute {
		t.Errorf("expiries spread over %v..%v, want (0, 30m]", minLeft, maxLeft)
	}
	last := list.Runtimes[len(list.Runtimes)-1].Name
	var sessions struct {
		Sessions []api.Session `json:"sessions"`
	}
	decode(t, call(t, cs, "list_sessions", map[string]any{"parent": last}), &sessions)
	if len(sessions.Sessions) != 1 { // rt-load00300: every third has a notebook
		t.Errorf("%s sessions = %v", last, sessions.Sessions)
	}
	// Deleting one keeps the lookups right for the others.
	if !s.Reclaim("runtimes/rt-load00001") || s.Reclaim("runtimes/rt-load00001") {
		t.Fatal("reclaim")
	}
	if got := s.Sessions(last); len(got) != 1 {
		t.Errorf("after a reclaim, %s sessions = %v", last, got)
	}
	if len(s.Runtimes()) != 2+n {
		t.Errorf("%d runtimes after a reclaim", len(s.Runtimes()))
	}
}

// A long run keeps running when its call is cut off, a reattach waits for
// it, and delete_session aborts it: the waiting call gets ABORTED.
func TestExecuteCodeLongRunAbortedByDeleteSession(t *testing.T) {
	s, cs, _ := startConnect(t, Options{Seed: SeedDemo})
	sess := "runtimes/rt-cpudemo4qx/sessions/dash-long"
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan answer, 1) // the test's checks run on its own goroutine
	go func() {
		res, err := callErr(cs, "execute_code", map[string]any{"session": sess, "code": "print(1)\ntime.sleep(3600)", "executionId": uuid.NewString()})
		done <- answer{res, err}
	}()
	// Wait until it runs (its session exists), then delete the session.
	has := func() bool {
		for _, x := range s.Sessions("runtimes/rt-cpudemo4qx") {
			if x.Name == sess {
				return true
			}
		}
		return false
	}
	for deadline := time.Now().Add(30 * time.Second); !has() && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case a := <-done:
		t.Fatalf("a one-hour run returned at once: %+v, %v", a.res, a.err)
	case <-time.After(50 * time.Millisecond):
	}
	call(t, cs, "delete_session", map[string]any{"name": sess})
	select {
	case a := <-done:
		if a.err != nil {
			t.Fatalf("execute_code: %v", a.err)
		}
		if e := toolError(t, a.res); e.Code != api.Aborted || !strings.Contains(e.Message, "deleted") {
			t.Fatalf("aborted run: %v", e)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("delete_session did not stop the run")
	}
}

func TestExecuteCode(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			s, cs, _ := startConnect(t, Options{Seed: SeedDemo, Stateless: m.stateless, JSONResponse: m.jsonr})
			rt := "runtimes/rt-t4demo7k2p"
			before := len(s.Sessions(rt))
			// Runtime target: a new session, named in the result.
			var r1 api.ExecuteCodeResult
			decode(t, call(t, cs, "execute_code", map[string]any{"runtime": rt, "code": "print(1)"}), &r1)
			if r1.Stdout != "1\n" || r1.ExecutionCount != 1 || !strings.HasPrefix(r1.Session, rt+"/sessions/") {
				t.Fatalf("runtime target: %+v", r1)
			}
			if got := len(s.Sessions(rt)); got != before+1 {
				t.Errorf("sessions %d → %d, want one new", before, got)
			}
			// Session target: created if missing; executionCount counts per session.
			sess := rt + "/sessions/dash-x"
			var a, b api.ExecuteCodeResult
			decode(t, call(t, cs, "execute_code", map[string]any{"session": sess, "code": "x = 1\ntrain(x)"}), &a)
			decode(t, call(t, cs, "execute_code", map[string]any{"session": sess, "code": `raise ValueError("bad")`}), &b)
			if a.ExecutionCount != 1 || b.ExecutionCount != 2 || a.Session != sess {
				t.Errorf("counts %d, %d in %s", a.ExecutionCount, b.ExecutionCount, a.Session)
			}
			if !strings.Contains(a.Stdout, "[colabdash emulator]") {
				t.Errorf("emulated output does not say so: %q", a.Stdout)
			}
			if b.ExecutionError == nil || b.ExecutionError.Name != "ValueError" || b.ExecutionError.Value != "bad" {
				t.Errorf("raise: %+v", b.ExecutionError)
			}
			// Same executionId after a result was returned runs again.
			id := uuid.NewString()
			var c1, c2 api.ExecuteCodeResult
			decode(t, call(t, cs, "execute_code", map[string]any{"session": sess, "code": "1", "executionId": id}), &c1)
			decode(t, call(t, cs, "execute_code", map[string]any{"session": sess, "code": "1", "executionId": id}), &c2)
			if c1.ExecutionID != id || c2.ExecutionCount != c1.ExecutionCount+1 {
				t.Errorf("re-run with a returned executionId: %d then %d", c1.ExecutionCount, c2.ExecutionCount)
			}
			for _, bad := range []map[string]any{
				{"code": "1"},
				{"code": "1", "runtime": rt, "session": sess},
				{"code": "1", "session": "runtimes/" + rt},
			} {
				if e := toolError(t, call(t, cs, "execute_code", bad)); e.Code != api.InvalidArgument {
					t.Errorf("%v: %v", bad, e)
				}
			}
			if e := toolError(t, call(t, cs, "execute_code", map[string]any{"runtime": "runtimes/gone", "code": "1"})); e.Code != api.NotFound {
				t.Errorf("missing runtime: %v", e)
			}
		})
	}
}

func TestExecuteCodeDeadlineReattach(t *testing.T) {
	s, cs, _ := startConnect(t, Options{Seed: SeedDemo})
	sess := "runtimes/rt-cpudemo4qx/sessions/dash-long"
	args := map[string]any{"session": sess, "code": "print('done')", "executionId": uuid.NewString()}
	s.Inject(Fault{Kind: FaultDeadline, Tool: "execute_code"})
	e := toolError(t, call(t, cs, "execute_code", args))
	if e.Code != api.DeadlineExceeded || e.HTTPStatus != 504 {
		t.Fatalf("cut-off call: %v", e)
	}
	// The identical call reattaches: same executionCount, no second run.
	var r api.ExecuteCodeResult
	decode(t, call(t, cs, "execute_code", args), &r)
	if r.Stdout != "done\n" || r.ExecutionCount != 1 {
		t.Fatalf("reattach: %+v", r)
	}
	// Once returned, the same executionId runs again.
	decode(t, call(t, cs, "execute_code", args), &r)
	if r.ExecutionCount != 2 {
		t.Errorf("after the result was returned: count %d, want 2", r.ExecutionCount)
	}
	// UNAVAILABLE works the same way.
	args["executionId"] = uuid.NewString()
	s.Inject(Fault{Kind: FaultDeadline, Tool: "execute_code", Code: api.Unavailable})
	if e := toolError(t, call(t, cs, "execute_code", args)); e.Code != api.Unavailable || e.HTTPStatus != 503 {
		t.Fatalf("unavailable: %v", e)
	}
	decode(t, call(t, cs, "execute_code", args), &r)
	if r.ExecutionCount != 3 {
		t.Errorf("reattach after UNAVAILABLE: count %d, want 3", r.ExecutionCount)
	}
}

// Colab cuts an execute_code call off at 600 s with DEADLINE_EXCEEDED
// while the code keeps running: the emulator does the
// same after Options.ExecuteCutoff. The identical call reattaches (cut
// off again while the code runs, the result once it ended: one run, one
// executionCount); a call without an executionId says it cannot resume.
func TestExecuteCodeCutoff(t *testing.T) {
	s, cs, _ := startConnect(t, Options{Seed: SeedDemo, ExecuteCutoff: 100 * time.Millisecond})
	rt := "runtimes/rt-cpudemo4qx"
	sess := rt + "/sessions/dash-cut"
	args := map[string]any{"session": sess, "code": "print('start')\ntime.sleep(1)\nprint('done')", "executionId": uuid.NewString()}
	e := toolError(t, call(t, cs, "execute_code", args))
	if e.Code != api.DeadlineExceeded || !strings.Contains(e.Message, "cut off after 100ms") || !strings.Contains(e.Message, "reattach") {
		t.Fatalf("a run longer than the cut-off: %v, want DEADLINE_EXCEEDED saying how to reattach", e)
	}
	if n := s.RunningCode(sess); n != 1 {
		t.Fatalf("%d runs in flight after the cut-off, want the code still running", n)
	}
	// Reattach as a client does: the identical call, until a result.
	var r api.ExecuteCodeResult
	cuts := 1
	for deadline := time.Now().Add(60 * time.Second); ; {
		res := call(t, cs, "execute_code", args)
		if !res.IsError {
			decode(t, res, &r)
			break
		}
		if e := toolError(t, res); e.Code != api.DeadlineExceeded {
			t.Fatalf("reattach: %v", e)
		}
		if cuts++; time.Now().After(deadline) {
			t.Fatalf("no result after %d reattaches", cuts)
		}
	}
	if r.Stdout != "start\ndone\n" || r.ExecutionCount != 1 {
		t.Fatalf("reattached result %+v, want the one run's output with executionCount 1", r)
	}
	// Without an executionId the call cannot be resumed, and says so.
	e = toolError(t, call(t, cs, "execute_code", map[string]any{"session": sess, "code": "time.sleep(3600)"}))
	if e.Code != api.DeadlineExceeded || !strings.Contains(e.Message, "cannot be resumed") {
		t.Fatalf("a cut-off call without an executionId: %v", e)
	}
	call(t, cs, "delete_session", map[string]any{"name": sess}) // stops the hour-long run
}
