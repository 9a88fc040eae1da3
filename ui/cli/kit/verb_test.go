package kit

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/termtext/termtexttest"
)

// A question abandoned by ctrl+c does not lose the line typed after it:
// the next question gets it.
func TestAbandonedAskKeepsTheLine(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	var errb strings.Builder
	v := NewVerb(&Globals{Logs: Logs{Red: &api.Redactor{}}}, &Streams{In: r, Err: &errb}, "delete")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ok, err := v.Ask(ctx, "first? "); ok || err == nil {
		t.Fatalf("ask on an ended context: ok %v, err %v", ok, err)
	}
	go io.WriteString(w, "y\n")
	if a, ok, err := v.Ask(context.Background(), "second? "); a != "y" || !ok || err != nil {
		t.Fatalf("the next ask: %q %v %v, want the line typed", a, ok, err)
	}
}

func TestWriteJSONEscapesTerminalControls(t *testing.T) {
	var out bytes.Buffer
	v := &Verb{G: &Globals{}, S: &Streams{Out: &out}}
	in := map[string]string{"v": "a\u0085b\u009bc\u202ed\u2066e\x1bf"}
	if err := v.WriteJSON(in); err != nil {
		t.Fatal(err)
	}
	termtexttest.NoControls(t, "JSON", out.String())
	var back map[string]string
	if err := json.Unmarshal(out.Bytes(), &back); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	if back["v"] != in["v"] {
		t.Fatalf("round trip: %q", back["v"])
	}
	for _, r := range out.String() {
		if r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
			t.Fatalf("bidi control %U left raw", r)
		}
	}
}

// A runtime argument is an id, runtimes/ID or a unique prefix; a session
// argument is R/S, R/sessions/S or runtimes/R/sessions/S.
func TestRuntimeAndSessionArgs(t *testing.T) {
	rts := []api.Runtime{{Name: "runtimes/rt-abc"}, {Name: "runtimes/rt-abd"}, {Name: "runtimes/x-1"}}
	for arg, want := range map[string]string{"rt-abc": "runtimes/rt-abc", "runtimes/rt-abd": "runtimes/rt-abd", "x": "runtimes/x-1", " rt-abc ": "runtimes/rt-abc"} {
		if rt, err := ResolveRuntime(rts, arg); err != nil || rt.Name != want {
			t.Errorf("resolve %q: %v %v", arg, rt.Name, err)
		}
	}
	for arg, code := range map[string]int{"rt-ab": ExitUsage, "rt-zzz": ExitNotFound, "": ExitUsage, "runtimes/": ExitUsage} {
		if _, err := ResolveRuntime(rts, arg); err == nil || err.(*ExitError).Code != code {
			t.Errorf("resolve %q: %v, want exit %d", arg, err, code)
		}
	}
	for arg, want := range map[string][2]string{
		"rt-a/s1": {"rt-a", "s1"}, "rt-a/sessions/s1": {"rt-a", "s1"}, "runtimes/rt-a/sessions/s1": {"rt-a", "s1"},
	} {
		if r, s, ok := SplitSessionArg(arg); !ok || r != want[0] || s != want[1] {
			t.Errorf("split %q: %q %q %v", arg, r, s, ok)
		}
	}
	for _, arg := range []string{"rt-a", "runtimes/rt-a", "rt-a/", "rt-a/sessions/", "rt-a/b/c"} {
		if _, _, ok := SplitSessionArg(arg); ok {
			t.Errorf("split %q: a session", arg)
		}
	}
}

// A yes/no question takes y or yes in any case; nothing else confirms,
// and a word asked for in so many words must be that word.
func TestConfirmsTakesYAndYes(t *testing.T) {
	for _, a := range []string{"y", "Y", "yes", "YES", "Yes", " yes "} {
		if !Confirms(a, "y") {
			t.Errorf("%q does not confirm", a)
		}
	}
	for _, a := range []string{"", "n", "no", "ye", "yess", "close"} {
		if Confirms(a, "y") {
			t.Errorf("%q confirms", a)
		}
	}
	if !Confirms("CLOSE", "close") || Confirms("y", "close") || Confirms("yes", "close") {
		t.Error("a word asked for in so many words")
	}
}
