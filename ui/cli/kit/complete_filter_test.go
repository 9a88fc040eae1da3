package kit

import (
	"bytes"
	"testing"
)

// The filter keeps the one tab between a value and its description, and
// a line written in pieces is filtered whole.
func TestCompletionWriterLines(t *testing.T) {
	var b bytes.Buffer
	c := &CompletionWriter{W: &b}
	for _, p := range []string{"rt-a\x1b[2", "J\tGPU\t/T4\u202e\n", ":4", "\n", "tail\x07"} {
		c.Write([]byte(p))
	}
	c.Flush()
	if want := "rt-a␛[2J\tGPU /T4\n:4\ntail␇"; b.String() != want {
		t.Fatalf("got %q, want %q", b.String(), want)
	}
}
