package runtimeproxy

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// readPutModel is what a contents PUT's body means to the emulator: the
// fields it acts on, the bytes saved (spooled), or the one-line error a
// client gets with its 400.
func TestReadPutModel(t *testing.T) {
	chunk := func(n int) *int { return &n }
	big := `"` + strings.Repeat("x", 1<<20) + `"`
	for _, c := range []struct {
		name, body string
		want       putFields
		spool      string // "" when nothing was saved
		err        string // a substring of the error, "" for none
	}{
		{name: "text with escapes", body: `{"type":"file","format":"text","content":"a\"b\\c\u00e9\n"}`,
			want: putFields{typ: "file", format: "text", hasContent: true}, spool: "a\"b\\cé\n"},
		{name: "base64 chunk", body: ` { "type" : "file" , "format" : "base64" , "chunk" : 2 , "content" : "aGVsbG8=" } `,
			want: putFields{typ: "file", format: "base64", chunk: chunk(2), hasContent: true}, spool: "hello"},
		{name: "format after the content", body: `{"content":"aGVsbG8=","chunk":-1,"format":"base64","type":"file"}`,
			want: putFields{typ: "file", format: "base64", chunk: chunk(-1), hasContent: true}, spool: "hello"},
		{name: "notebook as JSON", body: `{"type":"notebook","format":"json","content":{"cells":[],"nbformat":4}}`,
			want: putFields{typ: "notebook", format: "json", hasContent: true}, spool: `{"cells":[],"nbformat":4}`},
		{name: "notebook with brackets in its strings", body: `{"type":"notebook","format":"json","content":{"cells":[{"source":"a[0]]\\\""}]},"chunk":3}`,
			want: putFields{typ: "notebook", format: "json", chunk: chunk(3), hasContent: true}, spool: `{"cells":[{"source":"a[0]]\\\""}]}`},
		{name: "unknown members skipped", body: `{"x":{"a":[1,{"b":"c"}],"d":null},"name":"f.txt","type":"directory"}`,
			want: putFields{typ: "directory"}},
		{name: "null chunk and content", body: `{"type":"file","chunk":null,"content":null}`,
			want: putFields{typ: "file"}},
		{name: "empty object", body: `{}`},
		{name: "escape in base64", body: `{"format":"base64","content":"aGVs\/bG8="}`,
			err: "bad content: "},
		{name: "chunk not an integer", body: `{"chunk":"2"}`, err: "chunk is not an integer"},
		{name: "no comma", body: `{"type":"file" "format":"text"}`, err: "malformed JSON body"},
		{name: "key not a string", body: `{type:"file"}`, err: "malformed JSON body"},
		{name: "no colon", body: `{"type" "file"}`, err: `malformed JSON body: want ':', got '"'`},
		{name: "not an object", body: `["type"]`, err: `want '{', got '['`},
		{name: "cut inside the content", body: `{"type":"file","content":"abc`, err: "bad content: unexpected EOF"},
		{name: "cut after a value", body: `{"type":"file"`, err: "truncated JSON body"},
		{name: "a field over 1 MiB", body: `{"name":` + big + `}`, err: "JSON value too large"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, err := os.OpenRoot(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			pf, err := readPutModel(strings.NewReader(c.body), int64(len(c.body)), root, "spool")
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want it to contain %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if pf.typ != c.want.typ || pf.format != c.want.format || pf.hasContent != c.want.hasContent ||
				(pf.chunk == nil) != (c.want.chunk == nil) || pf.chunk != nil && *pf.chunk != *c.want.chunk {
				t.Errorf("fields = %+v (chunk %v), want %+v (chunk %v)", pf, pf.chunk, c.want, c.want.chunk)
			}
			got, err := root.ReadFile("spool")
			if c.spool == "" {
				if err == nil {
					t.Errorf("spooled %q, want nothing", got)
				}
			} else if !bytes.Equal(got, []byte(c.spool)) {
				t.Errorf("spooled %q (%v), want %q", got, err, c.spool)
			}
		})
	}
}
