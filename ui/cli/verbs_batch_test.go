package cli

import (
	"strings"
	"testing"

	"github.com/colabdash/colabdash/ui/cli/kit"
)

// A target named twice (or written two ways) is acted on once and
// reported once: `session close S S` calls delete_session once and
// succeeds, `delete R R` deletes once, and the question, the lines and
// the JSON name each target once.
func TestTargetsNamedTwiceActedOnOnce(t *testing.T) {
	e := demoVerbEnv(t)
	_, out, _ := e.run("session", "open", "rt-t4")
	ref := strings.TrimSpace(out)
	full := "runtimes/rt-t4demo7k2p/sessions/" + strings.SplitN(ref, "/", 2)[1]
	short := "rt-t4/" + strings.SplitN(ref, "/", 2)[1]

	code, out, errs := e.runTerm(term{in: "y\n", inTTY: true, errTTY: true}, "session", "close", ref, ref, short, full)
	if code != 0 || out != "closed "+ref+"\n" || !strings.Contains(errs, "Close 1 session?") || strings.Count(errs, ref) != 1 {
		t.Errorf("session close S S (S written 4 ways): exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if n := e.srv.CallCount("delete_session"); n != 1 {
		t.Errorf("session close S S: %d delete_session calls, want 1", n)
	}

	var closed closeReport
	_, out, _ = e.run("session", "open", "rt-t4", "--id", "colabdash-twice000")
	code, out, errs = e.run("session", "close", "rt-t4demo7k2p/colabdash-twice000", "rt-t4/colabdash-twice000", "rt-t4/nb-x", "rt-t4/nb-x", "--yes", "--json")
	mustJSON(t, out, &closed)
	if code != kit.ExitPartial || len(closed.Sessions) != 2 || !closed.Sessions[0].Closed || closed.Sessions[0].Name != "runtimes/rt-t4demo7k2p/sessions/colabdash-twice000" ||
		closed.Sessions[1].Closed || !strings.Contains(closed.Sessions[1].Error, "no session rt-t4demo7k2p/nb-x open") || strings.Count(errs, "\n") != 0 {
		t.Errorf("session close --json with repeats: exit %d, stdout %s, stderr %q", code, out, errs)
	}
	if n := e.srv.CallCount("delete_session"); n != 2 {
		t.Errorf("%d delete_session calls in all, want 2", n)
	}
	code, _, errs = e.run("session", "close", "rt-t4/notebook-ab12cd34", "rt-t4demo7k2p/notebook-ab12cd34", "--yes")
	if code != kit.ExitUsage || strings.Count(errs, "not opened by colabdash") != 1 {
		t.Errorf("a refused session named twice: exit %d, stderr %q, want the refusal once", code, errs)
	}

	code, out, errs = e.runTerm(term{in: "y\n", inTTY: true, errTTY: true}, "delete", "rt-cpu", "rt-cpudemo4qx", "runtimes/rt-cpudemo4qx")
	if code != 0 || out != "deleted rt-cpudemo4qx\n" || !strings.Contains(errs, "Delete 1 runtime?") || strings.Count(errs, "rt-cpudemo4qx") != 1 {
		t.Errorf("delete R R R: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	var deleted deleteReport
	code, out, errs = e.run("delete", "rt-v6e", "runtimes/rt-v6edemo2mw", "rt-gone", "rt-gone", "--yes", "--json")
	mustJSON(t, out, &deleted)
	if code != kit.ExitPartial || len(deleted.Runtimes) != 2 || deleted.Runtimes[0].Name != "runtimes/rt-v6edemo2mw" || !deleted.Runtimes[0].Deleted ||
		deleted.Runtimes[1].Name != "runtimes/rt-gone" || !deleted.Runtimes[1].Missing {
		t.Errorf("delete --json with repeats: exit %d, stdout %s, stderr %q", code, out, errs)
	}
	if n := e.srv.CallCount("delete_runtime"); n != 2 {
		t.Errorf("%d delete_runtime calls in all, want 2", n)
	}
	code, _, errs = e.run("delete", "rt-gone", "rt-gone", "--yes")
	if code != kit.ExitNotFound || strings.Count(errs, `no runtime "rt-gone"`) != 1 {
		t.Errorf("a missing runtime named twice: exit %d, stderr %q, want the error once", code, errs)
	}
}

// Field trial: every target is resolved before it is judged or
// deduplicated. A notebook's session written with a runtime prefix and
// with the full id is one entry under its resolved name, and a session on
// an unknown runtime is "no runtime", with or without --force.
func TestSessionCloseResolvesBeforeDedupe(t *testing.T) {
	e := demoVerbEnv(t)
	var rep struct {
		Sessions []struct{ Name, Error string }
	}
	code, out, _ := e.run("session", "close", "rt-t4/notebook-ab12cd34", "rt-t4demo7k2p/notebook-ab12cd34", "--yes", "--json")
	mustJSON(t, out, &rep)
	if code != kit.ExitUsage || len(rep.Sessions) != 1 || rep.Sessions[0].Name != "runtimes/rt-t4demo7k2p/sessions/notebook-ab12cd34" ||
		!strings.Contains(rep.Sessions[0].Error, "not opened by colabdash") {
		t.Errorf("one notebook session written two ways: exit %d, %s", code, out)
	}
	for _, force := range []bool{false, true} {
		args := []string{"session", "close", "rt-zz/nope", "--yes", "--json"}
		if force {
			args = append(args, "--force")
		}
		code, out, _ := e.run(args...)
		mustJSON(t, out, &rep)
		if code != kit.ExitNotFound || len(rep.Sessions) != 1 || !strings.HasPrefix(rep.Sessions[0].Error, `no runtime "rt-zz" (live: `) {
			t.Errorf("--force=%v, unknown runtime: exit %d, %s", force, code, out)
		}
	}
	// Without a terminal, the refusal counts only the real targets.
	e.run("session", "open", "rt-t4", "--id", "colabdash-count000")
	code, _, errs := e.runTerm(term{}, "session", "close", "rt-zz/colabdash-x", "rt-t4/colabdash-count000")
	if code != kit.ExitUsage || !strings.Contains(errs, `no runtime "rt-zz"`) || !strings.Contains(errs, "pass --yes to close 1 session") {
		t.Errorf("no terminal: exit %d, stderr %q", code, errs)
	}
	if n := e.srv.CallCount("delete_session"); n != 0 {
		t.Errorf("%d delete_session calls without confirmation", n)
	}
}

// Field trial: delete resolves every argument first. An unknown one's
// error does not offer a runtime this command deletes as live, the
// refusal without a terminal counts only real runtimes, and an id in the
// wrong case is pointed at its lower-case form.
func TestDeleteResolvesAllTargetsFirst(t *testing.T) {
	e := demoVerbEnv(t)
	code, _, errs := e.runTerm(term{}, "delete", "rt-zz", "rt-c")
	if code != kit.ExitUsage || !strings.Contains(errs, `no runtime "rt-zz"`) || !strings.Contains(errs, "pass --yes to delete 1 runtime") ||
		len(e.srv.Runtimes()) != 3 {
		t.Errorf("delete rt-zz rt-c without a terminal: exit %d, stderr %q", code, errs)
	}
	code, _, errs = e.run("delete", "RT-C", "--yes")
	if code != kit.ExitNotFound || !strings.Contains(errs, `no runtime "RT-C" (runtime ids are lower case: did you mean rt-cpudemo4qx?)`) {
		t.Errorf("delete RT-C: exit %d, stderr %q", code, errs)
	}
	var rep deleteReport
	// Field trial: the case hint was lost when the runtime it points at
	// is another target of the same command.
	code, out, _ := e.run("delete", "runtimes/rt-c", "RT-CPUDEMO4QX", "--json", "--yes")
	mustJSON(t, out, &rep)
	if code != kit.ExitPartial || len(rep.Runtimes) != 2 || !rep.Runtimes[0].Deleted || rep.Runtimes[1].Deleted ||
		!strings.Contains(rep.Runtimes[1].Error, `no runtime "RT-CPUDEMO4QX" (runtime ids are lower case: did you mean rt-cpudemo4qx? It is named in this command already)`) {
		t.Errorf("delete runtimes/rt-c RT-CPUDEMO4QX: exit %d, %s", code, out)
	}
	// An unknown argument does not offer a runtime this command deletes
	// as live.
	code, out, _ = e.run("delete", "rt-t4", "rt-zz", "--json", "--yes")
	mustJSON(t, out, &rep)
	if code != kit.ExitPartial || len(rep.Runtimes) != 2 || !rep.Runtimes[0].Deleted ||
		strings.Contains(rep.Runtimes[1].Error, "rt-t4demo7k2p") || !strings.Contains(rep.Runtimes[1].Error, "other live runtimes: rt-v6edemo2mw") {
		t.Errorf("delete rt-t4 rt-zz: exit %d, %s", code, out)
	}
}

// Field trial: without a terminal and with --json, delete and session
// close printed nothing on stdout when they refused, so a script learnt
// neither that its real targets were refused nor that an argument named
// nothing. The refusal (exit 2) now comes with the per-target document.
func TestBatchRefusalPrintsTheReport(t *testing.T) {
	e := demoVerbEnv(t)
	var rep deleteReport
	code, out, errs := e.run("delete", "rt-cpudemo4qx", "rt-cpu", "rt-zz", "--json")
	mustJSON(t, out, &rep)
	if code != kit.ExitUsage || len(rep.Runtimes) != 2 || !strings.Contains(errs, "pass --yes to delete 1 runtime") ||
		rep.Runtimes[0].Name != "runtimes/rt-cpudemo4qx" || rep.Runtimes[0].Deleted || !strings.Contains(rep.Runtimes[0].Error, "not confirmed") ||
		rep.Runtimes[1].Name != "runtimes/rt-zz" || !rep.Runtimes[1].Missing || !strings.Contains(rep.Runtimes[1].Error, `no runtime "rt-zz"`) ||
		len(e.srv.Runtimes()) != 3 {
		t.Errorf("delete without a terminal: exit %d, stdout %s, stderr %q", code, out, errs)
	}

	e.run("session", "open", "rt-t4", "--id", "colabdash-refuse00")
	var crep closeReport
	code, out, errs = e.run("session", "close", "rt-t4/colabdash-refuse00", "rt-zz/colabdash-x", "--json")
	mustJSON(t, out, &crep)
	if code != kit.ExitUsage || len(crep.Sessions) != 2 || !strings.Contains(errs, "pass --yes to close 1 session") ||
		crep.Sessions[0].Closed || !strings.Contains(crep.Sessions[0].Error, "not confirmed") ||
		!strings.Contains(crep.Sessions[1].Error, `no runtime "rt-zz"`) {
		t.Errorf("session close without a terminal: exit %d, stdout %s, stderr %q", code, out, errs)
	}
	// Answered no on a terminal: exit 1, and the document says so.
	code, out, _ = e.runTerm(term{in: "n\n", inTTY: true, errTTY: true}, "delete", "rt-cpudemo4qx", "--json")
	mustJSON(t, out, &rep)
	if code != kit.ExitFailure || len(rep.Runtimes) != 1 || rep.Runtimes[0].Deleted || !strings.Contains(rep.Runtimes[0].Error, "not confirmed") {
		t.Errorf("delete answered n: exit %d, stdout %s", code, out)
	}
	if n := e.srv.CallCount("delete_runtime") + e.srv.CallCount("delete_session"); n != 0 {
		t.Errorf("%d delete calls without confirmation", n)
	}
}

// delete's question takes yes, in any case, as well as y; no still
// cancels and deletes nothing.
func TestDeleteQuestionTakesYes(t *testing.T) {
	e := demoVerbEnv(t)
	code, _, errs := e.runTerm(term{in: "no\n", inTTY: true, errTTY: true}, "delete", "rt-cpudemo4qx")
	if code != kit.ExitFailure || len(e.srv.Runtimes()) != 3 {
		t.Fatalf("no: exit %d, stderr %q, %d runtimes", code, errs, len(e.srv.Runtimes()))
	}
	code, out, errs := e.runTerm(term{in: "YES\n", inTTY: true, errTTY: true}, "delete", "rt-cpudemo4qx")
	if code != 0 || out != "deleted rt-cpudemo4qx\n" || len(e.srv.Runtimes()) != 2 {
		t.Fatalf("YES: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
