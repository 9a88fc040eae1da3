package files

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
	"github.com/colabdash/colabdash/ui/overlay/files/pane"
)

// runOf is the command e runs (failing when e runs none).
func runOf(t *testing.T, e common.Effect) tea.Cmd {
	t.Helper()
	r, ok := e.(common.Run)
	if !ok || r.Cmd == nil {
		t.Fatalf("%#v runs nothing", e)
	}
	return r.Cmd
}

// planDownload is what the download-to dialog's check says of local for
// q (the local file, or the problem).
func planDownload(q *question, local string) (dst, problem string) {
	plan, err := pane.PlanDownload(q.target, ExpandTilde(local))
	if err != nil {
		return "", ProblemText(err)
	}
	return plan.Dst, ""
}

// A question asked about content/data.csv is answered about it alone: a
// listing of content/sub that lands while the question is open (enter
// pressed just before) puts another data.csv under the cursor, and the
// answer must not act on that one.
func TestAnswersActOnTheEntryTheyNamed(t *testing.T) {
	files := map[string]string{"content/data.csv": "top", "content/sub/data.csv": "sub"}
	// enterSubLate presses enter on sub/ (its listing not yet run), then
	// keys, and returns the question asked and the listing's command.
	enterSubLate := func(r *rig, keys ...string) (*question, tea.Cmd) {
		t.Helper()
		enter := runOf(t, r.o.HandleKey(commontest.Key("enter"), r.c))
		q := asked(r.press(t, keys...))
		if q == nil {
			t.Fatalf("%v asked nothing:\n%s", keys, commontest.Screen(t, r.o, r.c))
		}
		return q, enter
	}
	t.Run("delete", func(t *testing.T) {
		r := newRig(t, files, false, nil)
		q, enter := enterSubLate(r, "down", "x")
		if q.target.Path != "content/data.csv" {
			t.Fatalf("x asked about %q", q.target.Path)
		}
		r.drive(t, enter)
		commontest.MustContain(t, commontest.Screen(t, r.o, r.c), "rt-files:/content/sub")
		text, isErr, _ := said(r.o.Answer(q.ask, q.target, "", "", r.c))
		if text != "rt-files:/content/data.csv is no longer the selected entry: nothing deleted" || !isErr {
			t.Fatalf("y said %q", text)
		}
		if !r.exists(t, "content/sub/data.csv") || !r.exists(t, "content/data.csv") {
			t.Fatal("y on \"Delete content/data.csv?\" deleted a file though the screen no longer showed it")
		}
	})
	t.Run("download to", func(t *testing.T) {
		r := newRig(t, files, false, nil)
		q, enter := enterSubLate(r, "down", "D")
		r.drive(t, enter)
		out := filepath.Join(t.TempDir(), "got.csv")
		r.drive(t, runOf(t, r.o.Answer(q.ask, q.target, "", out, r.c)))
		if b, err := os.ReadFile(out); err != nil || string(b) != "top" {
			t.Fatalf("downloaded %q (%v), want content/data.csv's \"top\"", b, err)
		}
	})
	t.Run("upload into", func(t *testing.T) {
		r := newRig(t, files, false, nil)
		q, enter := enterSubLate(r, "u")
		r.drive(t, enter)
		local := filepath.Join(t.TempDir(), "up.txt")
		if err := os.WriteFile(local, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		text, _, _ := said(r.drive(t, runOf(t, r.o.Answer(q.ask, q.target, "", local, r.c))))
		if !r.exists(t, "content/up.txt") || r.exists(t, "content/sub/up.txt") {
			t.Fatal("the upload did not go to content/, the directory the question named")
		}
		if strings.Contains(text, "failed") {
			t.Fatal(text)
		}
	})
}

// d over an existing local file asks first; a link put in its place
// before y is not written through: the download goes into the
// directory the user meant and refuses the link there, instead of taking
// the joined path as a file name the user typed.
func TestReplaceDoesNotFollowALinkThatAppeared(t *testing.T) {
	workDir(t, map[string]string{"data.csv": "local work"})
	r := newRig(t, map[string]string{"content/data.csv": "remote"}, false, nil)
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	q := asked(r.drive(t, runOf(t, r.o.HandleKey(commontest.Key("d"), r.c))))
	if q == nil || q.ask != AskReplaceLocal || q.plan.Dst != "data.csv" || !q.plan.Exists {
		t.Fatalf("d over data.csv asked %+v", q)
	}
	if err := os.Remove("data.csv"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, "data.csv"); err != nil {
		t.Fatalf("cannot make the symbolic link this test needs: %v", err)
	}
	text, _, _ := said(r.drive(t, runOf(t, r.o.Answer(q.ask, q.target, q.local, "", r.c))))
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Fatalf("y wrote through the link: its target holds %q", b)
	}
	if st, err := os.Lstat("data.csv"); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	commontest.MustContain(t, text, "data.csv is a symbolic link")
}

// An upload over a file of the same name in the directory shown asks
// first, naming that file; over a directory it is refused.
func TestUploadAsksBeforeReplacing(t *testing.T) {
	r := newRig(t, map[string]string{"content/data.csv": "remote", "content/d/x": "x"}, false, nil)
	local := filepath.Join(t.TempDir(), "data.csv")
	if err := os.WriteFile(local, []byte("local"), 0o644); err != nil {
		t.Fatal(err)
	}
	here := asked(r.press(t, "u"))
	q := asked(r.o.Answer(here.ask, here.target, "", local, r.c))
	if q == nil || q.ask != AskReplaceRemote || q.entry.Name != "data.csv" || q.local != local {
		t.Fatalf("an upload over content/data.csv asked %+v", q)
	}
	dirLocal := filepath.Join(t.TempDir(), "d")
	if err := os.WriteFile(dirLocal, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	text, _, _ := said(r.o.Answer(here.ask, here.target, "", dirLocal, r.c))
	commontest.MustContain(t, text, "a directory rt-files:/content/d is in the way")
}

// An answer acts only in the files pane it was asked in. The dashboard
// hands a plan to whatever files pane is open when it lands, and a
// question can be answered after its pane closed: the download asked in
// a pane that was closed (and f opened another on the same runtime) is
// not started by the new pane, a question of one pane answered to
// another does nothing there, and one answered after its own pane closed
// does nothing either. Each says the pane it was asked in was closed.
func TestAnswersActOnlyInThePaneAskedIn(t *testing.T) {
	files := map[string]string{"content/data.csv": "remote"}
	closed := "the files pane of rt-files was closed: "
	mustSay := func(t *testing.T, e common.Effect, want string) {
		t.Helper()
		if text, isErr, _ := said(e); text != want || !isErr {
			t.Fatalf("said %q (error %v), want %q; effect %#v", text, isErr, want, e)
		}
	}
	t.Run("plan landing in the pane opened after", func(t *testing.T) {
		a := newRig(t, files, false, nil)
		q := asked(a.press(t, "down", "D"))
		out := filepath.Join(t.TempDir(), "got.csv")
		pm, ok := runOf(t, a.o.Answer(q.ask, q.target, "", out, a.c))().(pane.PlanMsg)
		if !ok {
			t.Fatal("the answer to D did not plan the download")
		}
		a.press(t, "esc")
		b := a.reopen(t)
		e := b.o.OnPlan(pm, b.c)
		if r, ok := e.(common.Run); ok && r.Cmd != nil {
			b.drive(t, r.Cmd)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatal("the pane opened after downloaded the file asked about in the closed one")
		}
		mustSay(t, e, closed+"nothing downloaded")
	})
	// Each answers the delete of content/data.csv where it may not act
	// (by: the rig whose pane drives the answer): the file stays.
	for _, tc := range []struct {
		name, deleted string
		answer        func(t *testing.T, a *rig) (e common.Effect, by *rig)
	}{
		{"answer handed to another pane", "another pane deleted the file a's question named", func(t *testing.T, a *rig) (common.Effect, *rig) {
			b := a.reopen(t)
			q := asked(a.press(t, "down", "x"))
			b.press(t, "down") // the same entry under b's cursor
			return b.o.Answer(q.ask, q.target, "", "", b.c), b
		}},
		{"the dashboard's dialog after its pane closed", "y in the closed pane's dialog deleted the file from the pane opened after", func(t *testing.T, a *rig) (common.Effect, *rig) {
			a.press(t, "down")
			sel, _ := a.o.Pane().Selection()
			d := dialogs{a.o}.Delete(sel, testNow).(*dialog.Dialog)
			a.press(t, "esc")
			b := a.reopen(t)
			b.press(t, "down") // the same entry under the new pane's cursor
			return d.OnAnswer(b.c, dialog.Reply{OK: true}), b
		}},
		{"answer after its pane closed", "the answer deleted the file after its pane closed", func(t *testing.T, a *rig) (common.Effect, *rig) {
			q := asked(a.press(t, "down", "x"))
			a.o.Close() // a profile switch drops the pane, its question on its way
			return a.o.Answer(q.ask, q.target, "", "", a.c), a
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newRig(t, files, false, nil)
			e, by := tc.answer(t, a)
			if r, ok := e.(common.Run); ok && r.Cmd != nil {
				by.drive(t, r.Cmd)
			}
			if !a.exists(t, "content/data.csv") {
				t.Fatal(tc.deleted)
			}
			mustSay(t, e, closed+"nothing done")
		})
	}
}
