package files

import (
	"strings"
	"testing"

	"github.com/colabdash/colabdash/ui/common/commontest"
)

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
			t.Fatalf("nothing selected:\n%s", r.screen(t))
		}
		d := dialogs{r.o}.Delete(sel, testNow)
		v := boxText(r.view(t, 100, 30, d))
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
