package files

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
	"github.com/colabdash/colabdash/ui/overlay/files/pane"
)

// The default Asker's dialogs (dialogs), each checked as the dashboard
// shows it: its words, what its check says of what is typed, and what
// its answer and its cancel do.

// mustDialog is the *dialog.Dialog o is.
func mustDialog(t *testing.T, o common.Overlay) *dialog.Dialog {
	t.Helper()
	d, ok := o.(*dialog.Dialog)
	if !ok {
		t.Fatalf("%T is not a dialog", o)
	}
	return d
}

// wantCheck fails unless got is want.
func wantCheck(t *testing.T, in string, got, want dialog.Check) {
	t.Helper()
	if got != want {
		t.Errorf("check of %q: %+v, want %+v", in, got, want)
	}
}

// wantSay fails unless e says text (as a pane key's message when
// paneKey).
func wantSay(t *testing.T, what string, e common.Effect, text string, paneKey bool) {
	t.Helper()
	if s, ok := e.(common.Say); !ok || s.Text != text || s.Pane != paneKey || s.Err {
		t.Errorf("%s: %#v, want the message %q (pane %v)", what, e, text, paneKey)
	}
}

// D's dialog says which file goes where, checks what is typed as the
// download will resolve it (the current directory when empty, ~ the home
// directory, a missing directory refused, an existing file to be asked
// about), and its answer plans the download of the file it named.
func TestDownloadToDialog(t *testing.T) {
	dir := workDir(t, nil)
	t.Setenv("HOME", dir)
	r := newRig(t, map[string]string{"content/data.csv": "a,b\n"}, false, nil)
	sel, ok := r.o.Pane().Selection()
	if !ok || sel.Name != "data.csv" {
		t.Fatalf("selected %+v:\n%s", sel, commontest.Screen(t, r.o, r.c))
	}
	d := mustDialog(t, dialogs{r.o}.DownloadTo(sel, testNow))
	if d.Title != "Download data.csv" || strings.Join(d.Body, "|") != "Local file or directory to download rt-files:/content/data.csv to." ||
		d.Hint != "empty: the current directory" {
		t.Fatalf("dialog %q %q hint %q", d.Title, d.Body, d.Hint)
	}
	wantCheck(t, "", d.Check(""), dialog.Check{Note: "downloads to data.csv"})
	wantCheck(t, "~/x.csv", d.Check("~/x.csv"), dialog.Check{Note: "downloads to " + filepath.Join(dir, "x.csv")})
	wantCheck(t, "~", d.Check("~"), dialog.Check{Note: "downloads to ~"}) // a file named ~, not the home directory
	wantCheck(t, "nowhere/x.csv", d.Check("nowhere/x.csv"), dialog.Check{Problem: "no such local file or directory: nowhere"})
	if err := os.WriteFile("data.csv", []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	wantCheck(t, "", d.Check(""), dialog.Check{Note: "replaces the local file data.csv (asks first)", Warn: true})
	wantSay(t, "cancel", d.OnAnswer(r.c, dialog.Reply{}), "download of data.csv cancelled: nothing downloaded", true)
	// Answered, the plan of the file it named: the local file exists, so
	// the replace question comes next, about the same file.
	if q := asked(r.drive(t, runOf(t, d.OnAnswer(r.c, dialog.Reply{OK: true, Input: ""})))); q == nil || q.ask != AskReplaceLocal || q.target != sel || q.local != "" {
		t.Fatalf("the answer asked %+v", q)
	}
}

// u's dialog names the directory shown, wants a path, and checks it as
// the upload will: a missing file or a directory refused, a directory of
// the runtime in the way refused, a file of the listing to be replaced
// asked about, else the size it uploads. Its answer uploads the file.
func TestUploadDialog(t *testing.T) {
	workDir(t, map[string]string{"new.txt": "hello", "data.csv": "x", "empty": "", "runs/f": ""})
	r := newRig(t, map[string]string{"content/data.csv": "a,b\n", "content/runs/r.txt": "r"}, false, nil)
	d := mustDialog(t, dialogs{r.o}.Upload(r.o.Pane(), testNow))
	if d.Title != "Upload to rt-files:/content" || d.Required != "type the path of a local file" ||
		strings.Join(d.Body, "|") != "Local file to upload into this directory (it keeps its name; directories: colabdash cp -r)." {
		t.Fatalf("dialog %q %q required %q", d.Title, d.Body, d.Required)
	}
	wantCheck(t, "missing.txt", d.Check("missing.txt"), dialog.Check{Problem: "no such local file or directory: missing.txt"})
	wantCheck(t, "runs", d.Check("runs"), dialog.Check{Problem: "local error: runs is a directory (use colabdash cp -r)"})
	wantCheck(t, "runs/f", d.Check("runs/f"), dialog.Check{Note: "uploads 0 B to rt-files:/content/f"})
	wantCheck(t, "new.txt", d.Check("new.txt"), dialog.Check{Note: "uploads 5 B to rt-files:/content/new.txt"})
	wantCheck(t, "data.csv", d.Check("data.csv"), dialog.Check{Note: "replaces rt-files:/content/data.csv on the runtime (asks first)", Warn: true})
	// A local file named as a directory of the listing: that directory is
	// in the way.
	if err := os.WriteFile(filepath.Join("runs", "runs"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	wantCheck(t, "runs/runs", d.Check("runs/runs"), dialog.Check{Problem: "a directory rt-files:/content/runs is in the way"})
	wantSay(t, "cancel", d.OnAnswer(r.c, dialog.Reply{}), "upload cancelled: nothing uploaded", true)
	if r.exists(t, "content/new.txt") {
		t.Fatal("new.txt on the runtime before the answer")
	}
	r.drive(t, runOf(t, d.OnAnswer(r.c, dialog.Reply{OK: true, Input: "new.txt"})))
	if !r.exists(t, "content/new.txt") {
		t.Fatal("the answered upload did not upload new.txt")
	}
}

// x's dialog: cancelled it says nothing was deleted; answered, the entry
// it named is deleted.
func TestDeleteDialogAnswer(t *testing.T) {
	r := newRig(t, map[string]string{"content/data.csv": "a,b\n"}, false, nil)
	sel, _ := r.o.Pane().Selection()
	d := mustDialog(t, dialogs{r.o}.Delete(sel, testNow))
	wantSay(t, "cancel", d.OnAnswer(r.c, dialog.Reply{}), "delete of data.csv cancelled: nothing deleted", true)
	if !r.exists(t, "content/data.csv") {
		t.Fatal("the cancel deleted data.csv")
	}
	r.drive(t, runOf(t, d.OnAnswer(r.c, dialog.Reply{OK: true})))
	if r.exists(t, "content/data.csv") {
		t.Fatal("the answered delete left data.csv")
	}
}

// The question before a download replaces a local file names it with
// its size and time; cancelled, the file is kept and it says so;
// answered, the download replaces it.
func TestReplaceLocalDialog(t *testing.T) {
	workDir(t, map[string]string{"data.csv": "old"})
	r := newRig(t, map[string]string{"content/data.csv": "a,b\n"}, false, nil)
	at := time.Date(2026, 3, 4, 5, 6, 0, 0, time.UTC)
	if err := os.Chtimes("data.csv", at, at); err != nil {
		t.Fatal(err)
	}
	sel, _ := r.o.Pane().Selection()
	plan, err := pane.PlanDownload(sel, "")
	if err != nil || !plan.Exists {
		t.Fatalf("plan %+v, %v", plan, err)
	}
	d := mustDialog(t, dialogs{r.o}.ReplaceLocal(sel, "", plan, r.c))
	if d.Title != "Replace data.csv?" || strings.Join(d.Body, "|") !=
		"data.csv exists (3 B, modified 2026-03-04 05:06): downloading rt-files:/content/data.csv replaces it.|Your local copy cannot be recovered." {
		t.Fatalf("dialog %q %q", d.Title, d.Body)
	}
	wantSay(t, "cancel", d.OnAnswer(r.c, dialog.Reply{}), "nothing downloaded: data.csv is kept as it was", false)
	r.drive(t, runOf(t, d.OnAnswer(r.c, dialog.Reply{OK: true})))
	if b, err := os.ReadFile("data.csv"); err != nil || string(b) != "a,b\n" {
		t.Fatalf("after the answer data.csv holds %q (%v)", b, err)
	}
}

// The question before an upload replaces the runtime's file names it
// with its size (0 too) and time, as far as the listing knows them;
// cancelled, it says the runtime's file is kept; answered, the upload
// replaces it.
func TestReplaceRemoteDialog(t *testing.T) {
	dir := t.TempDir()
	r := newRig(t, map[string]string{"content/data.csv": "a,b\n"}, false, nil)
	local := filepath.Join(dir, "data.csv")
	if err := os.WriteFile(local, []byte("new body"), 0o600); err != nil {
		t.Fatal(err)
	}
	here := r.o.Pane().Here()
	at := time.Date(2026, 3, 4, 5, 6, 0, 0, time.UTC)
	for _, tc := range []struct {
		e    jupyter.Model
		want string
	}{
		{jupyter.Model{Size: 4, LastModified: at}, "replaces it (4 B, modified 2026-03-04 05:06)."},
		{jupyter.Model{Size: 0}, "replaces it (0 B)."},
		{jupyter.Model{Size: -1, LastModified: at}, "replaces it."},
	} {
		d := mustDialog(t, dialogs{r.o}.ReplaceRemote(here, local, tc.e, r.c))
		if d.Title != "Replace data.csv on the runtime?" || strings.Join(d.Body, "|") !=
			"rt-files:/content/data.csv exists: uploading "+local+" "+tc.want+"|The runtime's copy cannot be recovered." {
			t.Errorf("dialog for %+v: %q %q", tc.e, d.Title, d.Body)
		}
	}
	d := mustDialog(t, dialogs{r.o}.ReplaceRemote(here, local, jupyter.Model{Size: 4}, r.c))
	wantSay(t, "cancel", d.OnAnswer(r.c, dialog.Reply{}), "nothing uploaded: rt-files:/content/data.csv is kept as it was", false)
	r.drive(t, runOf(t, d.OnAnswer(r.c, dialog.Reply{OK: true})))
	if m, err := r.client(t).Stat(t.Context(), "content/data.csv"); err != nil || m.Size != int64(len("new body")) {
		t.Fatalf("after the answer content/data.csv is %+v (%v)", m, err)
	}
}

// The delete dialog's words hold on both kinds of server: one that
// deletes for good and one that moves what it deletes to its trash (a
// stock jupyter_server moves deleted files to its trash). It must not promise "This cannot
// be undone." (a trashed file can be restored until the trash is purged),
// must say, as the status line after the delete does, that the Jupyter
// server may keep it in its trash and how to free that, and it stays one
// y-only question (no second one about the trash).
func TestDeleteDialogSaysTheTrashMayKeepIt(t *testing.T) {
	r := newRig(t, map[string]string{"content/data.csv": "a,b\n", "content/runs/r.txt": "r"}, false, nil)
	for _, tc := range []struct{ down, want, it string }{
		{"", "The directory rt-files:/content/runs and everything listed in it are deleted from the runtime", "them"},
		{"down", "The file rt-files:/content/data.csv is deleted from the runtime", "it"},
	} {
		if tc.down != "" {
			r.press(t, tc.down)
		}
		sel, ok := r.o.Pane().Selection()
		if !ok {
			t.Fatalf("nothing selected:\n%s", commontest.Screen(t, r.o, r.c))
		}
		d := dialogs{r.o}.Delete(sel, testNow)
		v := boxText(commontest.Draw(t, r.o, r.c, d))
		commontest.MustContain(t, v, "Delete "+sel.Name+"?", tc.want,
			"Its Jupyter server may keep "+tc.it+" in its trash until purged (colabdash rm --purge rt-files frees it).",
			"y confirm · any other key cancels")
		if strings.Contains(v, "cannot be undone") {
			t.Fatalf("the dialog promises what a server with a trash does not keep:\n%s", v)
		}
		if n := strings.Count(v, "?"); n != 1 {
			t.Fatalf("%d questions in the dialog, want 1:\n%s", n, v)
		}
	}
}

// boxText is the text of drawn lines with the dialog's borders dropped
// and runs of spaces (the box's wrapping) made one, so a sentence wrapped
// over two lines reads whole.
func boxText(lines []string) string {
	var words []string
	for _, l := range lines {
		l = strings.NewReplacer("│", " ", "┌", " ", "┐", " ", "└", " ", "┘", " ", "─", " ", "┄", " ").Replace(l)
		words = append(words, strings.Fields(l)...)
	}
	return strings.Join(words, " ")
}

// A runtime id that fails the paste rule is not offered in the delete
// dialog's purge command: the dialog says it in words instead.
func TestDeleteDialogOffersNoPurgeCommandForAnUnusualID(t *testing.T) {
	r := newRig(t, map[string]string{"content/data.csv": "a,b\n"}, false, nil)
	sel, ok := r.o.Pane().Selection()
	if !ok {
		t.Fatalf("nothing selected:\n%s", commontest.Screen(t, r.o, r.c))
	}
	sel.Runtime = "rt;touch${IFS}pwned"
	v := boxText(commontest.Draw(t, r.o, r.c, dialogs{r.o}.Delete(sel, testNow)))
	if strings.Contains(v, "rm --purge rt;") || !strings.Contains(v, "colabdash rm --purge with this runtime") {
		t.Errorf("dialog:\n%s", v)
	}
}
