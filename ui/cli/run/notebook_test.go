package run

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/kit/kittest"
)

// staleNotebook has code cells that all carry outputs and counts from an
// earlier run: an empty one, one that prints, one that raises, and one
// after it.
const staleNotebook = `{"nbformat": 4, "nbformat_minor": 5, "metadata": {},
 "cells": [
  {"cell_type": "code", "metadata": {}, "execution_count": 3, "outputs": [{"output_type": "stream", "name": "stdout", "text": ["stale-empty\n"]}], "source": ""},
  {"cell_type": "code", "metadata": {}, "execution_count": 4, "outputs": [{"output_type": "stream", "name": "stdout", "text": ["stale-ran\n"]}], "source": "print('fresh')"},
  {"cell_type": "code", "metadata": {}, "execution_count": 5, "outputs": [{"output_type": "stream", "name": "stdout", "text": ["stale-failed\n"]}], "source": "raise KeyError('k')"},
  {"cell_type": "code", "metadata": {}, "execution_count": 6, "outputs": [{"output_type": "execute_result", "execution_count": 6, "data": {"text/plain": ["'stale-after'"]}, "metadata": {}}], "source": "'after'"}
 ]}`

// The executed notebook holds only this run's outputs: a cell that failed
// has its own, and the cells that did not run (empty, or after the
// failure) have none and no count, not the input's.
func TestRunNotebookLeavesNoStaleOutputs(t *testing.T) {
	e := kittest.Empty(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "stale.ipynb")
	if err := os.WriteFile(in, []byte(staleNotebook), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.Run(Command, "--spec", "CPU", in)
	if r.Code != 1 || !strings.Contains(r.Err, "[3/4] cell ") || !strings.Contains(r.Err, " failed after ") {
		t.Fatalf("exit %d, stderr %q", r.Code, r.Err)
	}
	// The traceback is printed and ends with the exception's line: the
	// progress line does not say it again.
	for _, line := range strings.Split(r.Err, "\n") {
		if strings.Contains(line, " failed after ") && strings.Contains(line, "KeyError") {
			t.Errorf("the progress line repeats the traceback's last line: %q", line)
		}
	}
	if !strings.Contains(r.Err, "Traceback (most recent call last)") {
		t.Errorf("no traceback: %q", r.Err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "stale.out.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "stale-") {
		t.Errorf("the executed notebook keeps the input's outputs:\n%s", b)
	}
	var got struct {
		Cells []struct {
			ExecutionCount *int              `json:"execution_count"`
			Outputs        []json.RawMessage `json:"outputs"`
		}
	}
	if err := json.Unmarshal(b, &got); err != nil || len(got.Cells) != 4 {
		t.Fatalf("%v:\n%s", err, b)
	}
	for i, ran := range []bool{false, true, true, false} {
		c := got.Cells[i]
		if ran != (c.ExecutionCount != nil) || ran != (len(c.Outputs) > 0) {
			count := "null"
			if c.ExecutionCount != nil {
				count = strconv.Itoa(*c.ExecutionCount)
			}
			t.Errorf("cell %d (ran: %v): execution_count %s, %d outputs", i+1, ran, count, len(c.Outputs))
		}
	}
	if !strings.Contains(string(b), `"fresh\n"`) || !strings.Contains(string(b), `"output_type": "error"`) {
		t.Errorf("this run's outputs are missing:\n%s", b)
	}
	var xe struct {
		Type      string   `json:"output_type"`
		Name      string   `json:"ename"`
		Traceback []string `json:"traceback"`
	}
	if err := json.Unmarshal(got.Cells[2].Outputs[0], &xe); err != nil || xe.Type != "error" || xe.Name != "KeyError" ||
		len(xe.Traceback) == 0 || !strings.Contains(xe.Traceback[len(xe.Traceback)-1], "KeyError") {
		t.Errorf("the failed cell's error output (%v): %s", err, got.Cells[2].Outputs[0])
	}
	left(t, e)
}

// A notebook's code cells run in order (a source given as a list of
// lines too), each said on stderr; the executed notebook keeps the other
// cells and fields as they were and holds each code cell's stream and
// value, as nbformat writes them.
func TestRunNotebookOutputs(t *testing.T) {
	e := kittest.Empty(t)
	dir := t.TempDir()
	nb := filepath.Join(dir, "nb.ipynb")
	if err := os.WriteFile(nb, []byte(`{"nbformat": 4, "nbformat_minor": 5, "metadata": {"kernelspec": {"name": "python3"}},
 "cells": [
  {"cell_type": "markdown", "metadata": {}, "source": "# Title"},
  {"cell_type": "code", "metadata": {"tags": ["a"]}, "execution_count": null, "outputs": [], "source": ["print('forty", "-two')"]},
  {"cell_type": "code", "metadata": {}, "execution_count": null, "outputs": [], "source": "'done'"}
 ]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.Run(Command, "--spec", "CPU", nb)
	if r.Code != 0 || !strings.Contains(r.Err, "[1/2] cell 2 ok in ") || !strings.Contains(r.Err, "[2/2] cell 3 ok in ") || strings.Contains(r.Err, "code cell") ||
		!strings.Contains(r.Err, "wrote "+filepath.Join(dir, "nb.out.ipynb")) {
		t.Fatalf("exit %d, stderr %q", r.Code, r.Err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "nb.out.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Metadata map[string]any   `json:"metadata"`
		Cells    []map[string]any `json:"cells"`
	}
	if err := json.Unmarshal(b, &out); err != nil || len(out.Cells) != 3 || out.Metadata["kernelspec"] == nil {
		t.Fatalf("%v: %s", err, b)
	}
	if _, ok := out.Cells[0]["outputs"]; ok || out.Cells[0]["source"] != "# Title" {
		t.Errorf("the markdown cell changed: %v", out.Cells[0])
	}
	stream, _ := json.Marshal(out.Cells[1]["outputs"])
	if string(stream) != `[{"name":"stdout","output_type":"stream","text":["forty-two\n"]}]` || out.Cells[1]["metadata"].(map[string]any)["tags"] == nil {
		t.Errorf("code cell 1: %s %v", stream, out.Cells[1]["metadata"])
	}
	value, _ := json.Marshal(out.Cells[2]["outputs"])
	if !strings.Contains(string(value), `"data":{"text/plain":["'done'"]}`) || !strings.Contains(string(value), `"output_type":"execute_result"`) ||
		out.Cells[2]["execution_count"] == nil {
		t.Errorf("code cell 2: %s, count %v", value, out.Cells[2]["execution_count"])
	}
	if !strings.HasSuffix(string(b), "}\n") || !strings.Contains(string(b), "\n \"cells\": [\n") {
		t.Errorf("not written as nbformat writes (one-space indent, final newline):\n%s", b)
	}
}

// writeNB writes a notebook of the given code cells' sources in a
// directory of its own and returns its path.
func writeNB(t *testing.T, name string, sources ...string) string {
	t.Helper()
	cells := make([]string, len(sources))
	for i, src := range sources {
		b, _ := json.Marshal(src)
		cells[i] = `{"cell_type": "code", "metadata": {}, "execution_count": null, "outputs": [], "source": ` + string(b) + `}`
	}
	p := filepath.Join(t.TempDir(), name)
	doc := `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [` + strings.Join(cells, ",") + `]}`
	if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// SIGTERM while a cell runs: the run says which cell it stopped in, exits
// 143, writes the notebook with the cells that ran, and deletes the
// runtime.
func TestRunNotebookStoppedInACell(t *testing.T) {
	e := kittest.Empty(t)
	nb := writeNB(t, "nb.ipynb", "print('one')", "time.sleep(600)")
	sigs, done := runWithSignals(e, "--spec", "CPU", nb)
	waitUntil(t, done, "the second cell running", func() bool {
		return e.Srv.CallCount(api.ToolExecuteCode) == 2 && len(e.Srv.Runtimes()) == 1 &&
			e.Srv.RunningCode(e.Srv.Sessions(e.Srv.Runtimes()[0].Name)[0].Name) > 0
	})
	sigs <- syscall.SIGTERM
	r := <-done
	if r.Code != 128+int(syscall.SIGTERM) || !strings.Contains(r.Err, "[1/2] cell 1 ok") || !strings.Contains(r.Err, "interrupted (terminated) in cell 2") {
		t.Fatalf("exit %d, stderr %q", r.Code, r.Err)
	}
	b, err := os.ReadFile(strings.TrimSuffix(nb, ".ipynb") + ".out.ipynb")
	if err != nil || !strings.Contains(string(b), `"one\n"`) {
		t.Errorf("the executed notebook (%v):\n%s", err, b)
	}
	left(t, e)
}

// A notebook whose every cell ran but whose executed copy cannot be
// written fails (exit 1) and says why: the outputs are nowhere else.
func TestRunNotebookUnwritableOutputFails(t *testing.T) {
	e := kittest.Empty(t)
	nb := writeNB(t, "nb.ipynb", "print('one')")
	// The longest name a directory entry can have: its temporary file
	// beside it, a longer name, cannot be created.
	out := filepath.Join(t.TempDir(), strings.Repeat("n", 255-len(".ipynb"))+".ipynb")
	r := e.Run(Command, "--spec", "CPU", "--notebook-out", out, nb)
	if r.Code != 1 || !strings.Contains(r.Err, "could not write the executed notebook: ") || !strings.Contains(r.Err, "colabdash: writing ") ||
		strings.Contains(r.Err, "wrote ") {
		t.Fatalf("exit %d, stderr %q", r.Code, r.Err)
	}
	left(t, e)
}

// A cell's rich outputs Colab kept on the runtime (an image, a figure)
// are fetched before the runtime goes and put in the executed notebook
// as the cell's display outputs (a bundle that is an output already, and
// a bare mime bundle); one the server dropped, one that is not there and
// one outside /content are said on stderr and left out. (The emulator
// cannot write under the hidden /content/.dsm_outputs, where Colab puts
// them: these bundles are uploaded elsewhere under /content.)
func TestRunNotebookFetchesRichOutputs(t *testing.T) {
	e := kittest.Empty(t)
	bundles := filepath.Join(t.TempDir(), "bundles")
	if err := os.Mkdir(bundles, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"out-000.json": `{"output_type": "display_data", "data": {"image/png": "iVBORw0KGgo=", "text/plain": ["<Figure>"]}, "metadata": {"image/png": {"width": 10}}}`,
		"out-001.json": `{"image/svg+xml": "<svg/>"}`,
	} {
		if err := os.WriteFile(filepath.Join(bundles, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultOutput, Tool: api.ToolExecuteCode, Output: json.RawMessage(`{"executionCount": 1, "stdout": "plotted\n",
 "richOutputs": [{"index": 0, "mimeTypes": ["image/png"], "filePath": "/content/bundles/out-000.json"},
  {"index": 1, "mimeTypes": ["text/html"]},
  {"index": 2, "mimeTypes": ["image/svg+xml"], "filePath": "/content/bundles/out-001.json"},
  {"index": 3, "mimeTypes": ["image/png"], "filePath": "/content/bundles/gone.json"},
  {"index": 4, "mimeTypes": ["image/png"], "filePath": "/etc/passwd"}]}`)})
	nb := writeNB(t, "nb.ipynb", "plot()")
	r := e.Run(Command, "--spec", "CPU", "--upload", bundles, nb)
	if r.Code != 0 || !strings.Contains(r.Err, "cell 1: rich output 1 (text/html) was dropped by the server") ||
		!strings.Contains(r.Err, "cell 1: rich output 3 (image/png) at /content/bundles/gone.json not fetched: ") ||
		!strings.Contains(r.Err, "cell 1: rich output 4 (image/png) at /etc/passwd not fetched: not a path under /content") {
		t.Fatalf("exit %d, stderr %q", r.Code, r.Err)
	}
	b, err := os.ReadFile(strings.TrimSuffix(nb, ".ipynb") + ".out.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Cells []struct {
			Outputs []json.RawMessage `json:"outputs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &got); err != nil || len(got.Cells) != 1 || len(got.Cells[0].Outputs) != 3 {
		t.Fatalf("%v:\n%s", err, b)
	}
	want := []string{
		`{"name":"stdout","output_type":"stream","text":["plotted\n"]}`,
		`{"data":{"image/png":"iVBORw0KGgo=","text/plain":["\u003cFigure\u003e"]},"metadata":{"image/png":{"width":10}},"output_type":"display_data"}`,
		`{"data":{"image/svg+xml":"\u003csvg/\u003e"},"metadata":{},"output_type":"display_data"}`,
	}
	for i, w := range want {
		var v any
		_ = json.Unmarshal(got.Cells[0].Outputs[i], &v)
		if c, _ := json.Marshal(v); string(c) != w {
			t.Errorf("output %d: %s, want %s", i, c, w)
		}
	}
	left(t, e)
}

// A notebook whose kernel is not Python is refused before anything is
// sent to Colab (exit 2, one line naming the kernel); a Python one by
// its language or its kernel's name runs.
func TestRunRefusesANotebookOfAnotherKernel(t *testing.T) {
	e := kittest.Empty(t)
	for _, meta := range []string{
		`{"kernelspec": {"name": "ir", "language": "R", "display_name": "R"}}`,
		`{"kernelspec": {"name": "julia-1.10"}}`,
		`{"language_info": {"name": "scala"}}`,
	} {
		p := filepath.Join(t.TempDir(), "nb.ipynb")
		if err := os.WriteFile(p, []byte(`{"nbformat": 4, "nbformat_minor": 5, "metadata": `+meta+`, "cells": []}`), 0o600); err != nil {
			t.Fatal(err)
		}
		r := e.Run(Command, "--spec", "CPU", p)
		if r.Code != 2 || strings.Count(r.Err, "\n") != 1 || !strings.Contains(r.Err, "not Python: run runs Python notebooks only") {
			t.Errorf("%s: exit %d, stderr %q", meta, r.Code, r.Err)
		}
	}
	if n := e.Srv.CreateCalls(); n != 0 {
		t.Errorf("%d create_runtime call(s) at the server", n)
	}
	if lang := notebookKernel(json.RawMessage(`{"kernelspec": {"name": "ir", "language": "R"}}`)); lang != "R" {
		t.Errorf("R kernel read as %q", lang)
	}
	for _, py := range []string{`{"kernelspec": {"name": "python3", "language": "python"}}`, `{"kernelspec": {"name": "conda-env-x-py"}}`,
		`{"language_info": {"name": "python"}}`, `{}`} {
		if k := notebookKernel(json.RawMessage(py)); k != "" {
			t.Errorf("%s refused as %q", py, k)
		}
	}
}

// The old --output still names the executed notebook, with a warning.
func TestRunDeprecatedOutput(t *testing.T) {
	e := kittest.Empty(t)
	out := filepath.Join(t.TempDir(), "done.ipynb")
	r := e.Run(Command, "--spec", "CPU", "--output", out, writeNB(t, "nb.ipynb", "print('one')"))
	if r.Code != 0 || !strings.Contains(r.Err, "--output is deprecated and will be removed; use --notebook-out FILE") {
		t.Errorf("exit %d, stderr %q", r.Code, r.Err)
	}
	if _, err := os.Stat(out); err != nil {
		t.Error(err)
	}
	left(t, e)
}
