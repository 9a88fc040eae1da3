package state

import (
	"strconv"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api/jupyter/jobs"
)

// EventKind is what happened, in a notification: one of the Event*
// constants. The user mutes notifications by kind (config notify.mute).
type EventKind string

// The kinds of event colabdash notifies.
const (
	// EventJobEnded: a job ended (exited, killed by a signal, or lost).
	EventJobEnded EventKind = "job-ended"
	// EventRuntimeIdle: a runtime has been idle by every signal past the
	// idle threshold.
	EventRuntimeIdle EventKind = "runtime-idle"
	// EventRuntimeGone: a runtime was reclaimed or disappeared from the
	// listing without colabdash deleting it.
	EventRuntimeGone EventKind = "runtime-gone"
	// EventTokenFailed: a runtime's proxy token could not be renewed.
	EventTokenFailed EventKind = "token-failed"
	// EventCodeDone: code run from the console finished while the user
	// looked elsewhere.
	EventCodeDone EventKind = "code-done"
	// EventGuardDelete: the idle guard deleted a runtime (or warns that it
	// is about to).
	EventGuardDelete EventKind = "idle-guard"
)

// EventKinds are every kind, in the order the docs list them.
var EventKinds = []EventKind{EventJobEnded, EventRuntimeIdle, EventRuntimeGone, EventTokenFailed, EventCodeDone, EventGuardDelete}

// ValidEventKind reports whether k is one of EventKinds.
func ValidEventKind(k string) bool {
	for _, e := range EventKinds {
		if string(e) == k {
			return true
		}
	}
	return false
}

// Event is one thing to tell the user about. Runtime is the runtime's id
// (rt-…, "" when none), Job the job's id, Status a short word of the
// outcome ("exited 0", "killed by signal 15", "lost", "idle 30m"), Text a
// sentence for people. Instance tells apart two events of one kind on one
// subject that are really distinct (a runtime idle again after work: the
// time its idleness began); two processes seeing the same event compute the
// same Key, so it is told once. Every text field comes from colabdash's own
// words or from a server (untrusted): a notifier sanitizes and redacts them.
type Event struct {
	Kind     EventKind
	Runtime  string
	Job      string
	Status   string
	Text     string
	Instance string
	At       time.Time
}

// Key identifies ev across processes and refreshes: its kind, runtime,
// job and instance (not its time or wording), so that a job's end seen
// by two dashboards and at every refresh is one event.
func (ev Event) Key() string {
	return strings.Join([]string{string(ev.Kind), ev.Runtime, ev.Job, ev.Instance}, "\x00")
}

// Title is a notification's short title: "colabdash: job train-4kq9zt
// exited 0", "colabdash: rt-1 idle 30m".
func (ev Event) Title() string {
	var b strings.Builder
	b.WriteString("colabdash: ")
	switch {
	case ev.Job != "":
		b.WriteString("job " + ev.Job)
	case ev.Runtime != "":
		b.WriteString(ev.Runtime)
	default:
		b.WriteString(string(ev.Kind))
	}
	if ev.Status != "" {
		b.WriteString(" " + ev.Status)
	}
	return b.String()
}

// JobEndStatus words a job's end for an Event's Status: "exited N",
// "killed by signal S", or "lost".
func JobEndStatus(exitCode, signal int, lost bool) string {
	switch {
	case lost:
		return "lost"
	case signal > 0:
		return "killed by signal " + strconv.Itoa(signal)
	}
	return "exited " + strconv.Itoa(exitCode)
}

// Muted reports whether kind is among mute.
func Muted(mute []EventKind, kind EventKind) bool {
	for _, m := range mute {
		if m == kind {
			return true
		}
	}
	return false
}

// The ways a notification reaches the terminal (config notify.terminal).
const (
	// NotifyAuto: the bell, plus a desktop notification where the
	// terminal is known to show one (NotifyVia decides).
	NotifyAuto = "auto"
	// NotifyBell: the terminal's bell only.
	NotifyBell = "bell"
	// NotifyOSC9: a desktop notification as iTerm2, WezTerm, Ghostty,
	// Windows Terminal and kitty read it (OSC 9), with the bell.
	NotifyOSC9 = "osc9"
	// NotifyOSC777: a desktop notification as foot, urxvt, Ghostty and
	// the VTE terminals with their patch read it (OSC 777), with the bell.
	NotifyOSC777 = "osc777"
	// NotifyOff: nothing on the terminal (the event log and the command
	// still hear of it).
	NotifyOff = "off"
)

// NotifyModes are the values notify.terminal accepts.
var NotifyModes = []string{NotifyAuto, NotifyBell, NotifyOSC9, NotifyOSC777, NotifyOff}

// NotifyVia resolves mode (one of NotifyModes) for the terminal the
// environment describes: termProgram ($TERM_PROGRAM), term ($TERM),
// kitty ($KITTY_WINDOW_ID set). Auto picks OSC 9
// for the terminals that show it (iTerm2, WezTerm, Ghostty, kitty, Windows
// Terminal through $WT_SESSION in term's place: pass "wt"), OSC 777 for
// foot and urxvt, and the bell alone otherwise (the VTE terminals read
// OSC 777 only with a distribution's patch), since an OSC a terminal does
// not read is at best ignored.
func NotifyVia(mode, termProgram, term string, kitty bool) string {
	if mode != NotifyAuto {
		return mode
	}
	switch {
	case termProgram == "iTerm.app", termProgram == "WezTerm", termProgram == "ghostty", kitty, term == "wt":
		return NotifyOSC9
	case strings.HasPrefix(term, "foot"), strings.HasPrefix(term, "rxvt-unicode"):
		return NotifyOSC777
	}
	return NotifyBell
}

// JobEnded is the event of job rec's end as v (JudgeJob) words it: its
// status ("exited 0", "killed by SIGTERM", "lost", "failed") and a
// sentence naming the job's runtime, how long it ran and its script as
// it was typed, with its arguments (JobScript: "job train-4kq9zt on
// rt-abc exited 0 after 1h2m: train.py --epochs 300"; the runtime's text:
// a notifier sanitizes it). It is the one wording of a job's end: the
// dashboard, wait and jobs --watch all tell it, and every process
// watching the job computes the same Key.
func JobEnded(rec jobs.Record, v JobView, at time.Time) Event {
	rt := strings.TrimPrefix(rec.Runtime, "runtimes/")
	text := "job " + rec.Spec.ID
	if rt != "" {
		text += " on " + rt
	}
	text += " " + v.Word()
	if v.Duration > 0 {
		text += " after " + FormatCountdown(v.Duration)
	}
	if cmd := JobScript(rec.Spec); cmd != "" {
		text += ": " + cmd
	}
	return Event{Kind: EventJobEnded, Runtime: rt, Job: rec.Spec.ID, Status: v.Word(), Text: text, At: at}
}
