package colabfake

import (
	"strings"

	"github.com/colabdash/colabdash/api"
)

// The hostile seed's payloads, the control sequences a server was seen
// putting in runtime names, accelerators, tiers and shapes: each would drive
// a terminal that printed it raw. Tests look for their control bytes in
// every output; by hand, `colabdash emulator --seed hostile` shows them.
const (
	// HostileOSC52 writes "hacked" to the clipboard (OSC 52).
	HostileOSC52 = "\x1b]52;c;aGFja2Vk\x07"
	// HostileOSC0 changes the window or pane title (OSC 0).
	HostileOSC0 = "\x1b]0;pwned\x07"
	// HostileCSI2J clears the screen (CSI 2J).
	HostileCSI2J = "\x1b[2J"
	// HostileC1CSI is the one-character CSI (U+009B) clearing the screen.
	HostileC1CSI = "\u009b2J"
	// HostileRLO is RIGHT-TO-LEFT OVERRIDE (U+202E): text shows reversed.
	HostileRLO = "\u202e"
	// HostileLongLen is the length of the hostile seed's long runtime id.
	HostileLongLen = 5000
)

// hostileAll is every payload in one string.
const hostileAll = HostileOSC52 + HostileOSC0 + HostileCSI2J + HostileC1CSI + HostileRLO

// SeedHostile starts with runtimes, sessions, a tier, runtime specs and
// execute_code output whose strings carry terminal control sequences
// (OSC 52, OSC 0, CSI 2J, U+009B, U+202E) and a 5,000-character runtime
// id, to check by hand or in tests that none reaches the terminal.
const SeedHostile = "hostile"

func (s *Server) seedHostile() {
	now := s.now()
	s.tier = api.SubscriptionTier("SUBSCRIPTION_TIER_PRO" + HostileOSC0)
	ttl := s.opts.TokenTTL
	add := func(id string, key api.RuntimeSpecKey, version string, sessions ...string) {
		r := &runtimeState{rt: api.Runtime{Name: api.RuntimeName(id), RuntimeSpec: key, Version: version}}
		r.rt.ConnectionInfo = &api.ConnectionInfo{URL: fakeColabURL("rt") + "/" + HostileRLO + "lmth.exe" + HostileOSC0,
			Token: randomToken(), ExpireTime: now.Add(ttl * 40 / 60).UTC()}
		for _, sid := range sessions {
			r.sessions = append(r.sessions, newSession(s.ctx, r.rt.Name+"/sessions/"+sid, s.now()))
		}
		s.addRuntimeState(r)
	}
	add("rt-clip"+HostileOSC52+"board", spec(api.VariantGPU, "T4"+HostileOSC0, api.Shape("SHAPE_STANDARD"+HostileCSI2J)),
		"2025."+HostileRLO+"07", "notebook-"+HostileOSC0+"title", "nb-"+HostileC1CSI+"\r\n\x07bell")
	add("rt-"+strings.Repeat("x", HostileLongLen-3), spec(api.VariantCPU, api.AcceleratorNone, api.ShapeStandard), "",
		"nb-"+HostileCSI2J+HostileRLO+"gnol")
	add("rt-bidi"+HostileRLO+"txt.exe"+HostileC1CSI, spec(api.Variant("VARIANT_TPU"+HostileC1CSI), "V6E1", api.ShapeHighMem),
		strings.Repeat("9", 300))
}

// hostileSpecs are extra list_runtime_specs entries of the hostile seed
// (eligible, unknown to create_runtime).
var hostileSpecs = []api.RuntimeSpec{
	{Key: spec(api.Variant("VARIANT_GPU"+HostileOSC0), "H100"+HostileOSC52, api.Shape("SHAPE_"+HostileCSI2J)), Eligible: true},
	{Key: spec(api.VariantGPU, "A100"+HostileRLO+HostileC1CSI, api.ShapeStandard), Eligible: true},
}

// hostileExec is what execute_code returns in the hostile seed: every
// payload in stdout, stderr, the result and an executionError.
func hostileExec(res *api.ExecuteCodeResult) {
	res.Stdout += "stdout " + hostileAll + " end\rcarriage\n"
	res.Stderr = "stderr " + hostileAll + "\n"
	res.Result = "'result " + hostileAll + "'"
	res.ExecutionError = &api.ExecuteError{Name: "Hostile" + HostileOSC0 + "Error", Value: "value " + hostileAll,
		Traceback: []string{"\x1b[0;31mtraceback\x1b[0m " + hostileAll}}
}
