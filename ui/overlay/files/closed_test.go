package files

import (
	"testing"

	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
	"github.com/colabdash/colabdash/ui/common/commontest/holdproxy"
	"github.com/colabdash/colabdash/ui/overlay/files/pane"
)

// heldRig is a rig holding content/data.csv whose downloads are held
// (holdproxy): arrived and ended say when one came and went.
func heldRig(t *testing.T) (r *rig, arrived, ended <-chan struct{}) {
	t.Helper()
	r = newRig(t, map[string]string{"content/data.csv": "a,b\n"}, false, func(u string) string {
		p := holdproxy.Start(t, u, holdproxy.Downloads)
		arrived, ended = p.Arrived, p.Ended
		return p.URL
	})
	return r, arrived, ended
}

// startDownload presses d in o (a file selected, nothing local in its
// way) and runs the download in the background; its DoneMsg comes on the
// channel returned.
func startDownload(t *testing.T, o *Overlay, r *rig) <-chan pane.DoneMsg {
	t.Helper()
	xfer := runOf(t, o.OnPlan(runOf(t, o.HandleKey(commontest.Key("d"), r.c))().(pane.PlanMsg), r.c))
	done := make(chan pane.DoneMsg, 1)
	go func() {
		msg := xfer()
		for {
			p, ok := msg.(pane.ProgressMsg)
			if !ok {
				break
			}
			msg = p.Next()()
		}
		done <- msg.(pane.DoneMsg)
	}()
	return done
}

// Closed remembers the last MaxClosed panes closed mid-transfer: the end
// of an older one's transfer is no longer told in the status line (the
// event log has it), the newer ones' are.
func TestClosedKeepsTheLastMaxClosed(t *testing.T) {
	workDir(t, nil)
	r, arrived, ended := heldRig(t)
	var closed Closed
	var dones []<-chan pane.DoneMsg
	for i := 0; i <= MaxClosed; i++ {
		o := r.o
		if i > 0 {
			o = r.reopen(t).o
		}
		dones = append(dones, startDownload(t, o, r))
		commontest.WaitFor(t, arrived, "a download's request")
		r.o = o // press the pane's own esc
		if _, ok := r.press(t, "esc").(common.Close); !ok {
			t.Fatal("esc did not close the pane")
		}
		closed = closed.Note(o)
		commontest.WaitFor(t, ended, "the download stopping when its pane closed")
	}
	for i, ch := range dones {
		d := <-ch
		_, say := closed.Done(d, false)
		if got := say != nil; got != (i > 0) {
			t.Errorf("the end of pane %d of %d closed told: %v (%#v)", i+1, MaxClosed+1, got, say)
		}
	}
}
