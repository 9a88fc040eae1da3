package files

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
	"github.com/colabdash/colabdash/ui/overlay/files/pane"
	"github.com/colabdash/colabdash/ui/termtext"
)

// Without colour (no attributes at all) the pane still shows which row
// is selected: the cursor's row, and only it, starts with "›", and the
// marker follows the cursor.
func TestSelectionShowsWithoutColour(t *testing.T) {
	r := newRig(t, map[string]string{"content/data.csv": "a,b\n", "content/sample_data/r": "r"}, false, nil)
	marked := func() []string {
		var out []string
		for _, l := range commontest.Draw(t, r.o, r.c) {
			if strings.Contains(l, "\x1b") {
				t.Fatalf("an escape code without colour: %q", l)
			}
			if strings.HasPrefix(l, "›") {
				out = append(out, l)
			}
		}
		return out
	}
	if rows := marked(); len(rows) != 1 || !strings.Contains(rows[0], "sample_data/") {
		t.Fatalf("marked rows %q, want only sample_data/", rows)
	}
	r.press(t, "down")
	if rows := marked(); len(rows) != 1 || !strings.Contains(rows[0], "data.csv") {
		t.Fatalf("marked rows %q after down, want only data.csv", rows)
	}
	// The title says how to close, where it fits; every width draws.
	commontest.MustContain(t, commontest.Draw(t, r.o, r.c)[2], "FILES · rt-files:/content", "(esc to close)")
	// The hint only whole: on a screen one cell too narrow for it, the
	// title goes alone.
	w := termtext.Width(r.o.Pane().View(200, 2, nil)[0] + "  (esc to close)")
	if line := strings.TrimRight(commontest.Draw(t, r.o, commontest.Sized(r.c, w, 30))[2], " "); !strings.HasSuffix(line, "  (esc to close)") {
		t.Errorf("at %d columns the title is %q, want the hint whole", w, line)
	}
	if line := commontest.Draw(t, r.o, commontest.Sized(r.c, w-1, 30))[2]; strings.Contains(line, "(esc") {
		t.Errorf("at %d columns the title is %q, want no hint", w-1, line)
	}
	for _, w := range []int{20, 40, 80} {
		commontest.Draw(t, r.o, commontest.Sized(r.c, w, 12))
	}
}

// d and x pressed while a transfer runs say why they do nothing, beside
// the transfer's progress; esc then closes the pane saying it stops the
// transfer, and the transfer's end, which no open pane takes, says how it
// ended (Closed) unless another files pane is open.
func TestBusyKeysSayWhyAndClosingMidTransfer(t *testing.T) {
	workDir(t, nil)
	r, arrived, ended := heldRig(t)
	done := startDownload(t, r.o, r)
	commontest.WaitFor(t, arrived, "the download's request")
	const busy = "one transfer at a time: the download of data.csv is still running"
	for _, k := range []string{"x", "d", "D", "u"} {
		text, isErr, paneKey := said(r.press(t, k))
		if text != busy || !isErr || !paneKey {
			t.Fatalf("%s during a download said %q", k, text)
		}
		// The dashboard shows it (setStatus); the pane draws it beside
		// the progress.
		r.c.Status = common.Status{Text: text, Err: true, Until: testNow.Add(5 * time.Second)}
		if line := commontest.Draw(t, r.o, commontest.Sized(r.c, 120, 30))[28]; !strings.Contains(line, "↓ data.csv") || !strings.Contains(line, busy) {
			t.Fatalf("%s during a download: status line %q", k, line)
		}
	}
	// A message goes beside the progress only with 10 cells left for it
	// after the " · " between them.
	progress := r.o.Pane().Status()
	r.c.Status = common.Status{Text: "hi", Until: testNow.Add(5 * time.Second)}
	w := termtext.Width(progress) + 3 + 10
	if line := strings.TrimRight(commontest.Draw(t, r.o, commontest.Sized(r.c, w, 30))[28], " "); line != progress+" · hi" {
		t.Errorf("with 10 cells left the status line is %q, want %q", line, progress+" · hi")
	}
	if line := strings.TrimRight(commontest.Draw(t, r.o, commontest.Sized(r.c, w-1, 30))[28], " "); line != progress {
		t.Errorf("with 9 cells left the status line is %q, want the progress alone %q", line, progress)
	}
	var closed Closed
	e := r.press(t, "esc")
	if c, ok := e.(common.Close); !ok || c.Text != "files pane closed: stopping the download of data.csv…" {
		t.Fatalf("esc during a download answered %#v", e)
	}
	closed = closed.Note(r.o)
	commontest.WaitFor(t, ended, "the download stopping when its pane closed")
	var d pane.DoneMsg
	select {
	case d = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the cancelled download never answered")
	}
	if _, say := closed.Done(d, true); say != nil {
		t.Fatalf("with another files pane open the closed pane's end said %#v", say)
	}
	rest, say := closed.Done(d, false)
	text, _, _ := said(say)
	commontest.MustContain(t, text, "download of data.csv on rt-files cancelled")
	if _, again := rest.Done(d, false); again != nil {
		t.Fatalf("the same end said twice: %#v", again)
	}
	// How every other end of that transfer is told: finished after all,
	// failed, or cancelled with what is left of each kind of transfer.
	for _, tc := range []struct {
		op   string
		err  error
		want string
		bad  bool
	}{
		{"download", nil, "the download of data.csv on rt-files finished before its pane closed: downloaded data.csv", false},
		{"download", errors.New("disk full"), "download of data.csv on rt-files failed: disk full", true},
		{"download", jupyter.ErrInterrupted, "download of data.csv on rt-files cancelled: partial kept, resumes when downloaded again", false},
		{"download", context.Canceled, "download of data.csv on rt-files cancelled before anything was written", false},
		{"upload", jupyter.ErrInterrupted, "upload of data.csv on rt-files cancelled: the runtime's files are unchanged", false},
		{"delete", context.Canceled, "delete of data.csv on rt-files cancelled: entries removed before it stopped are gone", false},
	} {
		end := d
		end.Op, end.Err, end.Text = tc.op, tc.err, "downloaded data.csv"
		_, say := closed.Done(end, false)
		if s, ok := say.(common.Say); !ok || s.Text != tc.want || s.Err != tc.bad {
			t.Errorf("%s ending with %v said %#v, want %q", tc.op, tc.err, say, tc.want)
		}
	}
}
