package files

import (
	"strings"
	"testing"
)

// A runtime id that fails the paste rule is not offered in the delete
// dialog's purge command: the dialog says it in words instead.
func TestDeleteDialogOffersNoPurgeCommandForAnUnusualID(t *testing.T) {
	r := newRig(t, map[string]string{"content/data.csv": "a,b\n"}, false, nil)
	sel, ok := r.o.Pane().Selection()
	if !ok {
		t.Fatalf("nothing selected:\n%s", r.screen(t))
	}
	sel.Runtime = "rt;touch${IFS}pwned"
	v := boxText(r.view(t, 100, 30, dialogs{r.o}.Delete(sel, testNow)))
	if strings.Contains(v, "rm --purge rt;") || !strings.Contains(v, "colabdash rm --purge with this runtime") {
		t.Errorf("dialog:\n%s", v)
	}
}
