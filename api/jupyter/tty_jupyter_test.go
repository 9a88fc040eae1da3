package jupyter_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake/testkit"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/api/tty"
)

func waitOutput(t *testing.T, out *testkit.SyncBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("output lacks %q:\n%q", want, out.String())
		}
		time.Sleep(10 * time.Millisecond) // a poll of the output, not a wait for the server
	}
}

// terminals lists the real server's terminado terminals.
func terminals(t *testing.T, base string) []string {
	t.Helper()
	resp, err := http.Get(base + "api/terminals")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list []jupyter.Terminal
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, x := range list {
		names = append(names, x.Name)
	}
	return names
}

// The fallback against the real Debian jupyter-server behind the
// emulator's proxy: /colab/tty is Tornado's HTML 404 there, so the
// terminal is a terminado one; input, output and resize (rows first)
// work, `exit` ends it, and no terminal is left behind, after an exit as
// after a detach.
func TestTerminadoOnRealJupyter(t *testing.T) {
	c, base := jupyter.RealJupyterClient(t)
	before := len(terminals(t, base))

	out := &testkit.SyncBuffer{}
	term := tty.Open(context.Background(), tty.Options{Client: c, Output: out, Cols: 80, Rows: 24})
	select {
	case <-term.Connected():
	case <-term.Done():
		end, err := term.Result()
		t.Fatalf("not connected: %v %v", end, err)
	case <-time.After(60 * time.Second):
		t.Fatal("not connected within 60 s")
	}
	if term.Protocol() != tty.ProtocolTerminado {
		t.Fatalf("protocol %q, want terminado", term.Protocol())
	}
	_, _ = term.Write([]byte("echo colabdash-$((6*7))\r"))
	waitOutput(t, out, "colabdash-42")
	term.Resize(101, 37)
	_, _ = term.Write([]byte("stty size\r"))
	waitOutput(t, out, "37 101")
	_, _ = term.Write([]byte("exit\r"))
	select {
	case <-term.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("exit did not end the terminal")
	}
	if end, err := term.Result(); end != tty.EndExited || err != nil {
		t.Errorf("end %v, %v; want exited", end, err)
	}
	if n := len(terminals(t, base)); n != before {
		t.Errorf("%d terminals after exit, %d before", n, before)
	}

	// Detach: the terminal outlives its socket on a stock server, so the
	// client deletes it.
	out2 := &testkit.SyncBuffer{}
	term2 := tty.Open(context.Background(), tty.Options{Client: c, Output: out2, Cols: 80, Rows: 24})
	_, _ = term2.Write([]byte("echo second-$((2+3))\r"))
	waitOutput(t, out2, "second-5")
	if len(terminals(t, base)) != before+1 {
		t.Errorf("the second terminal is not listed")
	}
	term2.Close()
	if end, _ := term2.Result(); end != tty.EndDetached {
		t.Errorf("end %v, want detached", end)
	}
	if n := len(terminals(t, base)); n != before {
		t.Errorf("%d terminals after detach, %d before: not deleted", n, before)
	}
}
