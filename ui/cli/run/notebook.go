package run

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/safefile"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/termtext"
)

// ipynb is a Jupyter notebook (nbformat 4) as read: every top-level
// field and every field of every cell is kept as it was, so the executed
// notebook differs only in the code cells' outputs and execution counts.
type ipynb struct {
	top   map[string]json.RawMessage
	cells []map[string]json.RawMessage
}

// parseNotebook reads an nbformat 4 notebook.
func parseNotebook(b []byte) (*ipynb, error) {
	nb := &ipynb{}
	if err := json.Unmarshal(b, &nb.top); err != nil {
		return nil, fmt.Errorf("not a notebook (JSON): %v", err)
	}
	var major int
	if err := json.Unmarshal(nb.top["nbformat"], &major); err != nil || major != 4 {
		return nil, errors.New("not an nbformat 4 notebook (convert it with: jupyter nbconvert --to notebook --nbformat 4)")
	}
	if err := json.Unmarshal(nb.top["cells"], &nb.cells); err != nil {
		return nil, fmt.Errorf("its cells: %v", err)
	}
	if k := notebookKernel(nb.top["metadata"]); k != "" {
		return nil, fmt.Errorf("its kernel is %s (metadata.kernelspec), not Python: run runs Python notebooks only", termtext.Cut(k, 40))
	}
	return nb, nil
}

// notebookKernel is the kernel a notebook's metadata names when it is
// not Python ("" when it is, or names none): kernelspec.language when
// given (language_info.name else), else kernelspec.name, which for a
// Python kernel holds "py" (python3, conda-env-x-py, pyspark…).
func notebookKernel(meta json.RawMessage) string {
	var m struct {
		Kernelspec struct {
			Name     string `json:"name"`
			Language string `json:"language"`
		} `json:"kernelspec"`
		LanguageInfo struct {
			Name string `json:"name"`
		} `json:"language_info"`
	}
	_ = json.Unmarshal(meta, &m)
	lang, name := m.Kernelspec.Language, m.Kernelspec.Name
	if lang == "" {
		lang = m.LanguageInfo.Name
	}
	switch {
	case lang != "":
		if !strings.EqualFold(lang, "python") {
			return lang
		}
	case name != "":
		if !strings.Contains(strings.ToLower(name), "py") {
			return name
		}
	}
	return ""
}

// cellField reads a cell's string field, or "".
func cellField(c map[string]json.RawMessage, key string) string {
	var s string
	_ = json.Unmarshal(c[key], &s)
	return s
}

// cellSource is a cell's source: nbformat's multiline string, one string
// or a list of lines.
func cellSource(c map[string]json.RawMessage) string {
	var s string
	if json.Unmarshal(c["source"], &s) == nil {
		return s
	}
	var lines []string
	_ = json.Unmarshal(c["source"], &lines)
	return strings.Join(lines, "")
}

// nbLines is text as nbformat writes a multiline string: a list of
// lines, each with its "\n" but the last.
func nbLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// nbJSON marshals v for a cell field.
func nbJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// cellOutputs turns an execute_code result into nbformat outputs: stdout
// and stderr streams, the rich outputs fetched (richOutputs), the last
// expression's value as an execute_result (text/plain), and the
// exception as an error output.
func cellOutputs(res api.ExecuteCodeResult, rich []map[string]any) []map[string]any {
	outs := []map[string]any{}
	if res.Stdout != "" {
		outs = append(outs, map[string]any{"output_type": "stream", "name": "stdout", "text": nbLines(res.Stdout)})
	}
	if res.Stderr != "" {
		outs = append(outs, map[string]any{"output_type": "stream", "name": "stderr", "text": nbLines(res.Stderr)})
	}
	outs = append(outs, rich...)
	if res.Result != "" {
		outs = append(outs, map[string]any{"output_type": "execute_result", "execution_count": res.ExecutionCount,
			"data": map[string]any{"text/plain": nbLines(res.Result)}, "metadata": map[string]any{}})
	}
	if xe := res.ExecutionError; xe != nil {
		tb := xe.Traceback
		if tb == nil {
			tb = []string{}
		}
		outs = append(outs, map[string]any{"output_type": "error", "ename": xe.Name, "evalue": xe.Value, "traceback": tb})
	}
	return outs
}

// marshal writes the notebook as nbformat does: one-space indent, keys
// sorted, no HTML escaping, a final newline.
func (nb *ipynb) marshal() ([]byte, error) {
	top := make(map[string]json.RawMessage, len(nb.top))
	for k, v := range nb.top {
		top[k] = v
	}
	top["cells"] = nbJSON(nb.cells)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(top); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeNotebook writes nb to path through a temporary file beside it and
// a rename (a symlink at path is replaced, never followed).
func writeNotebook(nb *ipynb, path string) error {
	b, err := nb.marshal()
	if err != nil {
		return err
	}
	return safefile.WriteAtomic(path, b, 0o644)
}

// runNotebook runs the code cells in order in the run's session, a
// progress line for each on stderr, and writes the executed notebook
// (also when a cell failed or the run was stopped: the cells not run are
// left without outputs). The first cell that raises stops the run (exit
// code 1) and is named.
func (rs *runState) runNotebook(job *runJob) (int, error) {
	v, conn, nb := rs.v, rs.conn, job.nb
	var code []int
	for i, c := range nb.cells {
		if cellField(c, "cell_type") == "code" {
			code = append(code, i)
		}
	}
	rs.rep.Cells = len(code)
	for _, i := range code { // as papermill: no stale outputs in what is written
		nb.cells[i]["outputs"], nb.cells[i]["execution_count"] = nbJSON([]any{}), nbJSON(nil)
	}
	exit := 0
	var stopErr error
	for k, i := range code {
		c := nb.cells[i]
		src := cellSource(c)
		what := fmt.Sprintf("cell %d", i+1) // [k/n] before it counts the code cells
		if strings.TrimSpace(src) == "" {
			continue
		}
		t0 := time.Now()
		res, err := rs.runCode(api.ExecuteCodeRequest{Session: rs.session, Code: src, ExecutionID: uuid.NewString()})
		if err != nil {
			stopErr = rs.orStopped(kit.Classify(err, conn.Creds), "in "+what)
			break
		}
		c["outputs"], c["execution_count"] = nbJSON(cellOutputs(res, rs.richOutputs(what, res))), nbJSON(res.ExecutionCount)
		if xe := res.ExecutionError; xe != nil {
			// The traceback, when printed, ends with the exception's
			// line: the progress line does not say it again.
			line := fmt.Sprintf("[%d/%d] %s failed after %s", k+1, len(code), what, state.FormatDuration(time.Since(t0)))
			if v.AsJSON || len(xe.Traceback) == 0 {
				line += ": " + termtext.Cut(xe.Line(), 200)
			}
			v.Note(line)
			if !v.AsJSON {
				for _, frame := range xe.Traceback {
					v.Mu.Lock()
					fmt.Fprintln(v.S.Err, v.Red().Redact(strings.TrimRight(termtext.Output(frame), "\n")))
					v.Mu.Unlock()
				}
			}
			rs.rep.FailedCell, exit = i+1, kit.ExitFailure
			break
		}
		v.Note(fmt.Sprintf("[%d/%d] %s ok in %s", k+1, len(code), what, state.FormatDuration(time.Since(t0))))
	}
	if err := writeNotebook(nb, job.out); err != nil {
		v.Note("could not write the executed notebook: " + err.Error())
		if stopErr == nil && exit == 0 {
			return 0, &kit.ExitError{Code: kit.ExitFailure, Msg: "writing " + termtext.Cut(job.out, 200) + ": " + err.Error()}
		}
	} else {
		rs.rep.Output = job.out
		v.Note("wrote " + termtext.Cut(job.out, 200))
	}
	return exit, stopErr
}
