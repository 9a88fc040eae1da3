package report

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/common/commontest"
)

// `status --json` printed to a terminal carried the hostile seed's U+009B
// (a one-character CSI) and U+202E raw, since encoding/json escapes
// neither (red team). Now they are \u escapes: the output is inert and
// still decodes to the exact server strings.
func TestStatusJSONIsInertAndExact(t *testing.T) {
	name := api.RuntimeName("runtimes/rt-bidi" + colabfake.HostileRLO + "txt" + hostile)
	version := "2025." + colabfake.HostileRLO + "07" + colabfake.HostileC1CSI + "\u2066x\u2069"
	ov := api.Overview{
		Subscription: api.Subscription{Tier: api.SubscriptionTier("SUBSCRIPTION_TIER_PRO" + colabfake.HostileC1CSI)},
		Runtimes: []api.Runtime{{Name: name, Version: version,
			RuntimeSpec: api.RuntimeSpecKey{Variant: api.Variant("VARIANT_GPU\u0085"), Accelerator: "T4", Shape: api.ShapeStandard}}},
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, New(ov, time.Now(), false)); err != nil {
		t.Fatal(err)
	}
	commontest.AssertInert(t, "status --json", buf.String(), 0)
	var back Report
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatalf("status --json does not decode: %v\n%s", err, buf.String())
	}
	if len(back.Runtimes) != 1 || back.Runtimes[0].Name != name || back.Runtimes[0].Version != version ||
		back.Runtimes[0].RuntimeSpec.Variant != "VARIANT_GPU\u0085" || back.Subscription.Tier != ov.Subscription.Tier {
		t.Errorf("status --json changed the server's strings:\n%s", buf.String())
	}
}

// hostile is every hostile payload the emulator knows, together.
const hostile = colabfake.HostileOSC52 + colabfake.HostileOSC0 + colabfake.HostileCSI2J + colabfake.HostileC1CSI + colabfake.HostileRLO
