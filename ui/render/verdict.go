package render

// The activity verdict by every signal (state/monitor's Decide): the
// word, which signal decided it, and which were not read.

import (
	"slices"
	"strings"

	"github.com/colabdash/colabdash/state/monitor"
	"github.com/colabdash/colabdash/ui/termtext"
)

// VerdictWord is v as the table's word: ActivityWord, except a runtime
// kept busy by another signal than its kernels, which names it: "busy
// job" (a job runs), "busy GPU" (above 5 %), "busy term" (a terminal
// active within 2 minutes). An idle runtime's duration runs from the
// newest activity of any signal.
func VerdictWord(v monitor.Verdict) string {
	if v.State == monitor.StateBusy {
		switch v.By {
		case monitor.SignalJob:
			return "busy job"
		case monitor.SignalGPU:
			return "busy GPU"
		case monitor.SignalTerminal:
			return "busy term"
		}
	}
	return ActivityWord(v.Activity)
}

// VerdictWhy says for people which signal decided v and what it saw:
// "job: 2 running", "GPU 97%", "terminal 1 10s ago" for a runtime kept
// busy by one; for an idle one, the signals that agree ("kernels,
// terminals, jobs, GPU agree"); "" when the kernels alone decided
// something else. Server text (a terminal's name) is sanitized.
func VerdictWhy(v monitor.Verdict) string {
	if v.State == monitor.StateBusy {
		switch v.By {
		case monitor.SignalJob:
			return "job: " + v.Detail
		case monitor.SignalGPU:
			return "GPU " + v.Detail
		case monitor.SignalTerminal:
			return termtext.Cut(v.Detail, 40)
		}
		return ""
	}
	if v.State != monitor.StateIdle && v.State != monitor.StateNoKernels {
		return ""
	}
	known := []string{"kernels"}
	for _, s := range []struct {
		sig  monitor.Signal
		word string
	}{{monitor.SignalTerminal, "terminals"}, {monitor.SignalJob, "jobs"}, {monitor.SignalGPU, "GPU"}} {
		if !unknown(v, s.sig) {
			known = append(known, s.word)
		}
	}
	if len(known) == 1 {
		return "kernels alone"
	}
	return strings.Join(known, ", ") + " agree"
}

// VerdictQuiet is the quiet time of a runtime without kernels on which
// nothing was ever active, as the idle guard counts it ("idle 45m since
// first seen": such a runtime bills all the same); "" for any other.
func VerdictQuiet(v monitor.Verdict) string {
	if v.State != monitor.StateNoKernels || v.By != monitor.SignalFirstSeen {
		return ""
	}
	return word("idle ", v.For) + " since first seen"
}

// VerdictUnknown lists the signals not read ("terminals, GPU"), "" when
// every one was.
func VerdictUnknown(v monitor.Verdict) string {
	var out []string
	for _, s := range v.Unknown {
		switch s {
		case monitor.SignalTerminal:
			out = append(out, "terminals")
		case monitor.SignalJob:
			out = append(out, "jobs")
		default:
			out = append(out, string(s))
		}
	}
	return strings.Join(out, ", ")
}

func unknown(v monitor.Verdict, s monitor.Signal) bool { return slices.Contains(v.Unknown, s) }
