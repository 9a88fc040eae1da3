package proxy

// The listing decoder decodes what encoding/json decodes, for
// the models a server may send, and refuses what it refuses.

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// decodeListing runs the listing decoder over body and returns the
// directory's model with its entries.
func decodeListing(body string) (Model, error) {
	var entries []Model
	ld := &listDecoder{c: &Client{o: Options{}.withDefaults(), id: "rt-x"},
		each:   func(m Model) error { entries = append(entries, m); return nil },
		budget: &budgetReader{r: strings.NewReader(body), left: 1 << 20}}
	m, err := ld.decode()
	m.Entries = entries
	return m, err
}

// Every entry decodes to the Model encoding/json gives through
// modelWire: escapes (a surrogate pair, \/, \u0000), invalid UTF-8,
// nulls, unknown fields holding nested values (with quotes, brackets and
// backslashes inside their strings), odd white space, a repeated time and
// type, a field given twice (the last wins), a name written with an
// escape, and strings ending in an escaped backslash.
func TestListingDecoderMatchesEncodingJSON(t *testing.T) {
	entries := []string{
		`{"name": "a.txt", "path": "content/d/a.txt", "type": "file", "size": 12, "writable": true, "last_modified": "2026-11-01T12:00:00.123456Z", "created": "2026-11-01T12:00:00.123456Z", "mimetype": "text/plain", "content": null, "format": null, "hash": null}`,
		`{"name":"b\"q\\u00e9\ud83d\ude00\/x","path":"content/d/b","type":"file","size":0,"writable":false,"last_modified":"2026-11-01T12:00:00.123456Z","mimetype":null}`,
		"{\"name\": \"bad\xff\xfeutf8\", \"type\": \"file\", \"size\": null, \"extra\": {\"a\": [1, 2.5e3, {\"b\": null}], \"c\": \"}]\"}}",
		`{ "type" : "directory" , "name" : "sub" , "size" : null , "writable" : null , "last_modified" : "2026-11-01 12:00:00+00:00" }`,
		`{"name": "nul\u0000x", "type": "notebook", "size": -1, "name": "twice", "created": "not a time"}`,
		`{"extra": [{"a": "]}\\"}, "\\\"{"], "n\u0061me": "esc\\", "path": "p\\\\", "size": 7, "type": "file"}`,
		"{\n\t\"name\"\r\n:\t\"ws\" ,\"size\" : -0 ,\"writable\":true\n}",
		`{"\u006eame": "escaped from the first byte", "type": "directory", "mimetype": "text/plain"}`,
		`{"meta": {"a": {"b": [1, {"c": 2}]}, "name": "nested, not the entry's"}, "name": "outer", "type": "file"}`,
		`{"meta":[{}],"name":"compact","type":"file"}`,
		`{}`,
		`null`,
	}
	body := `)]}'` + "\n" + `{"name": "d", "path": "content/d", "type": "directory", "content": [` + strings.Join(entries, ",\n ") + `], "size": null}`
	got, err := decodeListing(body)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "d" || got.Path != "content/d" || !got.IsDir() || got.Size != -1 {
		t.Errorf("directory model %+v", got)
	}
	if len(got.Entries) != len(entries) {
		t.Fatalf("%d entries, want %d", len(got.Entries), len(entries))
	}
	for i, raw := range entries {
		var w modelWire
		if err := json.Unmarshal([]byte(raw), &w); err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		if want := w.model(); !reflect.DeepEqual(got.Entries[i], want) {
			t.Errorf("entry %d:\n got %+v\nwant %+v", i, got.Entries[i], want)
		}
	}
}

// The directory's own model: a reply without a size has Size -1 (unknown,
// as every model without one), and its name and type are read around the
// content.
func TestListingDecoderDirectoryModel(t *testing.T) {
	m, err := decodeListing(`{"content": [{"name": "a", "type": "file", "size": 3}], "type": "directory", "name": "d"}`)
	if err != nil || m.Size != -1 || m.Name != "d" || !m.IsDir() || len(m.Entries) != 1 || m.Entries[0].Size != 3 {
		t.Fatalf("decodeListing = %+v, %v", m, err)
	}
}

// A size written as a float (1024.0 from a Python server) or with an
// exponent is rounded, in the listing and in a single model alike: it
// is no reason to refuse the whole directory.
func TestSizeTakesAnyJSONNumber(t *testing.T) {
	m, err := decodeListing(`{"type": "directory", "size": 4096.0, "content": [{"name": "a", "size": 1024.0}, {"name": "b", "size": 1.5e3}, {"name": "c", "size": 2.5}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Entries) != 3 || m.Size != 4096 || m.Entries[0].Size != 1024 || m.Entries[1].Size != 1500 || m.Entries[2].Size != 3 {
		t.Errorf("listing = %+v", m)
	}
	var w modelWire
	if err := json.Unmarshal([]byte(`{"name": "a", "size": 1024.0}`), &w); err != nil || w.model().Size != 1024 {
		t.Errorf("model = %+v, %v", w.model(), err)
	}
}

// What encoding/json refuses, the decoder refuses (a reply that is not
// the expected JSON); a reply cut short is an unexpected end; a file's
// content is ErrNotDir.
func TestListingDecoderRefusals(t *testing.T) {
	dir := func(content string) string {
		return `{"name": "d", "type": "directory", "content": ` + content + `}`
	}
	for _, c := range []struct {
		body string
		want error
	}{
		{dir(`[{"name": 5}]`), errSyntax},
		{dir(`[{"size": "1"}]`), errSyntax},
		{dir(`[{"size": true}]`), errSyntax},
		{dir(`[{"writable": "yes"}]`), errSyntax},
		{dir(`[{"name": "a"} {"name": "b"}]`), errSyntax},
		{dir(`[{"name": "a",}]`), errSyntax},
		{dir(`[{"name": "a\x01"}]`), errSyntax},
		{dir(`[{"name": "a\q"}]`), errSyntax},
		{dir(`[tru]`), errSyntax},
		{dir(`[{"x": ` + strings.Repeat("[", 10_001) + strings.Repeat("]", 10_001) + `}]`), errSyntax},
		{`{"type": "directory", "content": [{"name": "a"}`, io.ErrUnexpectedEOF},
		{`{"type": "directory", "content": [{"name": "a`, io.ErrUnexpectedEOF},
		{`{"name": "f", "type": "file", "content": "abc"}`, ErrNotDir},
	} {
		_, err := decodeListing(c.body)
		if !errors.Is(err, c.want) {
			t.Errorf("%.60q: err = %v, want %v", c.body, err, c.want)
		}
		var w struct {
			Content []modelWire `json:"content"`
		}
		if c.want == errSyntax && json.Unmarshal([]byte(c.body), &w) == nil {
			t.Errorf("%.60q: encoding/json accepts it", c.body)
		}
	}
}

// A string longer than the reader's buffer, and a quote escaped right at
// a buffer's end, are read whole.
func TestListingDecoderLongStrings(t *testing.T) {
	long := strings.Repeat("x", 100_000)
	esc := strings.Repeat("y", 64<<10-30) + `\"z`
	body := fmt.Sprintf(`{"type": "directory", "content": [{"name": %q}, {"name": "%s"}]}`, long, esc)
	got, err := decodeListing(body)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Entries) != 2 || got.Entries[0].Name != long || got.Entries[1].Name != strings.Repeat("y", 64<<10-30)+`"z` {
		t.Errorf("long names not read whole (%d entries)", len(got.Entries))
	}
}

// The scanner checks JSON as jsontext does (invalid UTF-8 and repeated
// names allowed): listings cut and mutated at random bytes are accepted
// or refused alike, decoded to the same entries when accepted, and a
// listing cut short is an unexpected end, never a panic.
func TestListingScannerChecksAsJSONText(t *testing.T) {
	base := `{"name": "d", "type": "directory", "content": [` +
		`{"name": "a\u00e9\"b", "size": 1.5e3, "writable": true, "x": [null, {"y": -0.25E-2}], "type": "file"}, ` +
		`null, {"name":"c\\","size":-12,"last_modified":"2026-11-01T12:00:00Z","hash":false}], "size": null}`
	alphabet := []byte(`{}[]":,\ntfnrue0123456789-+.ea\u` + "\x01\xff ") // no capital: encoding/json matches names in any case
	rng := rand.New(rand.NewPCG(39, 3))
	accepted := 0
	for i := 0; i < 12_000; i++ {
		b := []byte(base)
		for n := rng.IntN(3); n >= 0; n-- {
			switch j := rng.IntN(len(b)); rng.IntN(3) {
			case 0:
				b[j] = alphabet[rng.IntN(len(alphabet))]
			case 1:
				b = append(b[:j], b[j+1:]...)
			default:
				b = append(b[:j], append([]byte{alphabet[rng.IntN(len(alphabet))]}, b[j:]...)...)
			}
		}
		// The reply's first value counts: what follows it is not read.
		first, jerr := jsontext.NewDecoder(bytes.NewReader(b), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true)).ReadValue()
		valid := jerr == nil
		if valid {
			b = b[:len(b)-len(bytes.TrimLeft(b, " \t\r\n"))+len(first)]
		}
		got, err := decodeListing(string(b))
		if valid {
			// Valid JSON: a listing, or refused for its shape only.
			var w struct {
				Content []modelWire `json:"content"`
			}
			werr := json.Unmarshal(b, &w)
			switch {
			case err == nil && werr != nil:
				t.Fatalf("%q: decoded, encoding/json refuses it: %v", b, werr)
			case err == nil:
				accepted++
				for k, e := range w.Content {
					if want := e.model(); k >= len(got.Entries) || !reflect.DeepEqual(got.Entries[k], want) {
						t.Fatalf("%q: entry %d differs from encoding/json's %+v", b, k, want)
					}
				}
			case errors.Is(err, io.ErrUnexpectedEOF):
				t.Fatalf("%q: valid JSON, yet %v", b, err)
			}
			continue
		}
		if err == nil {
			t.Fatalf("%q is not JSON, yet decoded: %+v", b, got)
		}
	}
	if accepted < 1000 {
		t.Fatalf("only %d mutated listings decoded", accepted)
	}
}

// BenchmarkListingDecode: the decoder over a listing of 10,000 entries
// as jupyter-server writes them (3.2 MB), from memory.
func BenchmarkListingDecode(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"name": "many", "path": "content/many", "last_modified": "2026-11-01T12:00:00.123456Z", "created": "2026-11-01T12:00:00.123456Z", "content": [`)
	for i := 0; i < 10_000; i++ {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, `{"name": "img_%06d_augmented_sample.png", "path": "content/many/img_%06d_augmented_sample.png", "last_modified": "2026-11-01T12:00:00.123456Z", "created": "2026-11-01T12:00:00.123456Z", "content": null, "format": null, "mimetype": "image/png", "size": 0, "writable": true, "hash": null, "hash_algorithm": null, "type": "file"}`, i, i)
	}
	sb.WriteString(`], "format": "json", "mimetype": null, "size": null, "writable": true, "type": "directory"}`)
	body := sb.String()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		n := 0
		ld := &listDecoder{c: &Client{o: Options{}.withDefaults(), id: "rt-x"},
			each:   func(m Model) error { n++; return nil },
			budget: &budgetReader{r: strings.NewReader(body), left: 1 << 20}}
		if _, err := ld.decode(); err != nil || n != 10_000 {
			b.Fatal(n, err)
		}
	}
}

// stringStops finds the first quote, backslash or control byte of eight
// wherever it is, whatever follows it, and marks nothing in eight
// bytes without one.
func TestStringStopsFindsTheFirstStopByte(t *testing.T) {
	for c := 0; c < 256; c++ {
		for at := 0; at < 8; at++ {
			for _, after := range []byte{'a', 0x00, '"', 0xff} {
				b := []byte("abcdefgh")
				b[at] = byte(c)
				for k := at + 1; k < 8; k++ {
					b[k] = after
				}
				first := 8
				for k, x := range b {
					if x == '"' || x == '\\' || x < 0x20 {
						first = k
						break
					}
				}
				got := 8
				if stop := stringStops(binary.LittleEndian.Uint64(b)); stop != 0 {
					got = bits.TrailingZeros64(stop) / 8
				}
				if got != first {
					t.Fatalf("stringStops(%q) finds byte %d, want %d", b, got, first)
				}
			}
		}
	}
}

// A reply fed a byte at a time (a hostile or very slow server) costs a
// few checks of each value, not one a byte: an entry of 30,000 numbers
// decodes in well under the seconds a check per byte took (28 s).
func TestListingDecoderByteAtATimeIsLinear(t *testing.T) {
	big := `{"name": "a", "type": "file", "x": [1` + strings.Repeat(",1", 30_000) + `]}`
	body := `{"name": "d", "path": "content/d", "type": "directory", "content": [` + big + `,` + big + `,` + big + `], "size": null}`
	var n int
	ld := &listDecoder{c: &Client{o: Options{}.withDefaults(), id: "rt-x"},
		each:   func(Model) error { n++; return nil },
		budget: &budgetReader{r: iotest.OneByteReader(strings.NewReader(body)), left: 1 << 20}}
	start := time.Now()
	if _, err := ld.decode(); err != nil || n != 3 {
		t.Fatalf("decode: %v, %d entries", err, n)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("a byte at a time: %v", took)
	}
}
