package ops

import (
	"context"
	"errors"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
)

func TestConnectionGivesFreshConnectionInfo(t *testing.T) {
	srv, svc := emulator(t, colabfake.Options{})
	rt := firstRuntime(t, srv)
	got, err := Connection(context.Background(), svc, rt.Name)
	if err != nil {
		t.Fatalf("Connection: %v", err)
	}
	if got.Name != rt.Name || got.ConnectionInfo == nil || got.ConnectionInfo.URL == "" || got.ConnectionInfo.Token == "" {
		t.Fatalf("Connection = %+v, want %s with a URL and a token", got, rt.Name)
	}
}

func TestConnectionWithoutConnectionInfo(t *testing.T) {
	srv, svc := emulator(t, colabfake.Options{})
	added, err := srv.AddRuntime(api.Runtime{Name: "runtimes/rt-noconn"})
	if err != nil {
		t.Fatal(err)
	}
	rt, err := Connection(context.Background(), svc, added.Name)
	if !errors.Is(err, ErrNoConnection) {
		t.Fatalf("Connection of a runtime without connectionInfo: %v, want ErrNoConnection", err)
	}
	if rt.Name != added.Name {
		t.Errorf("the runtime is not returned with ErrNoConnection: %+v", rt)
	}
	if _, err := Renewal(svc, added.Name)(context.Background()); !errors.Is(err, ErrNoConnection) {
		t.Errorf("Renewal: %v, want ErrNoConnection", err)
	}
	if _, _, err := OpenJupyter(context.Background(), svc, added.Name, JupyterOptions{}); !errors.Is(err, ErrNoConnection) {
		t.Errorf("OpenJupyter: %v, want ErrNoConnection", err)
	}
}

func TestConnectionOfUnknownRuntimeIsTheAPIError(t *testing.T) {
	_, svc := emulator(t, colabfake.Options{})
	_, err := Connection(context.Background(), svc, "runtimes/rt-nosuch")
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Code != api.NotFound {
		t.Fatalf("Connection of an unknown runtime: %v, want the API's NOT_FOUND", err)
	}
	if _, err := Renewal(svc, "runtimes/rt-nosuch")(context.Background()); !errors.As(err, &ae) {
		t.Errorf("Renewal of an unknown runtime: %v, want the API's error", err)
	}
}

func TestJupyterRenewsARefusedToken(t *testing.T) {
	srv, svc := emulator(t, colabfake.Options{})
	rt := firstRuntime(t, srv)
	stale := *rt.ConnectionInfo
	stale.Token = "stale-token"
	jc, err := Jupyter(svc, rt.Name, stale, JupyterOptions{Redactor: &api.Redactor{}})
	if err != nil {
		t.Fatalf("Jupyter: %v", err)
	}
	before := srv.CallCount(api.ToolGetRuntime)
	if _, err := jc.List(context.Background(), "content"); err != nil {
		t.Fatalf("listing through a refused token: %v (want it renewed and retried)", err)
	}
	if jc.Renewals() != 1 || srv.CallCount(api.ToolGetRuntime) != before+1 {
		t.Errorf("renewals %d, get_runtime calls %d: want one renewal through get_runtime", jc.Renewals(), srv.CallCount(api.ToolGetRuntime)-before)
	}
	if jc.Info().Token == "stale-token" {
		t.Error("the client still holds the refused token")
	}
}

func TestOpenJupyterReachesTheRuntime(t *testing.T) {
	srv, svc := emulator(t, colabfake.Options{})
	rt := firstRuntime(t, srv)
	jc, got, err := OpenJupyter(context.Background(), svc, rt.Name, JupyterOptions{})
	if err != nil {
		t.Fatalf("OpenJupyter: %v", err)
	}
	if got.Name != rt.Name || jc.Info().Token != got.ConnectionInfo.Token {
		t.Errorf("OpenJupyter gave runtime %s with token %q, want %s with get_runtime's token", got.Name, jc.Info().Token, rt.Name)
	}
	if _, err := jc.List(context.Background(), "content"); err != nil {
		t.Errorf("listing: %v", err)
	}
	if jc.Renewals() != 0 {
		t.Errorf("a fresh token was renewed %d times", jc.Renewals())
	}
	if _, _, err := OpenJupyter(context.Background(), svc, "runtimes/rt-nosuch", JupyterOptions{}); err == nil {
		t.Error("OpenJupyter of an unknown runtime succeeded")
	}
}

func TestJupyterRefusesAnUnusableURL(t *testing.T) {
	_, svc := emulator(t, colabfake.Options{})
	if _, err := Jupyter(svc, "runtimes/rt-x", api.ConnectionInfo{URL: "http://example.com/", Token: "t"}, JupyterOptions{}); err == nil {
		t.Error("a plain-http URL off loopback was accepted for a proxy token")
	}
	if _, err := Shell(svc, "runtimes/rt-x", api.ConnectionInfo{URL: "http://example.com/", Token: "t"}, JupyterOptions{}); err == nil {
		t.Error("Shell accepted a plain-http URL off loopback")
	}
}

func TestListedFollowsListRuntimes(t *testing.T) {
	srv, svc := emulator(t, colabfake.Options{})
	rt := firstRuntime(t, srv)
	listed := Listed(svc, rt.Name)
	if ok, err := listed(context.Background()); err != nil || !ok {
		t.Fatalf("a live runtime: listed %v, %v; want true", ok, err)
	}
	if !srv.Reclaim(rt.Name) {
		t.Fatal("reclaim failed")
	}
	if ok, err := listed(context.Background()); err != nil || ok {
		t.Errorf("a reclaimed runtime: listed %v, %v; want false", ok, err)
	}
	srv.Inject(colabfake.Fault{Kind: colabfake.FaultJSONRPCError, Tool: api.ToolListRuntimes, RPCCode: -32603, Message: "boom"})
	if ok, err := listed(context.Background()); err == nil || ok {
		t.Errorf("list_runtimes failing: listed %v, %v; want its error", ok, err)
	}
}

func TestShellTargetReachesTheRuntime(t *testing.T) {
	srv, svc := emulator(t, colabfake.Options{})
	rt := firstRuntime(t, srv)
	st, err := Shell(svc, rt.Name, *rt.ConnectionInfo, JupyterOptions{})
	if err != nil {
		t.Fatalf("Shell: %v", err)
	}
	if st.Client.Runtime() != rt.ID() && st.Client.Runtime() != rt.Name {
		t.Errorf("the shell's client is for %q, want %s", st.Client.Runtime(), rt.Name)
	}
	if ok, err := st.Listed(context.Background()); err != nil || !ok {
		t.Errorf("the shell's Listed: %v, %v; want true", ok, err)
	}
}
