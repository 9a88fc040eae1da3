package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
	"github.com/colabdash/colabdash/ui/termtext"
)

// A notebook cell's rich outputs (images, HTML, figures) are not in
// execute_code's reply: Colab writes each as an nbformat bundle on the
// runtime, under /content/.dsm_outputs/, and names its path. run reads
// each bundle through the runtime's /files/ route (which serves them,
// although their directory is hidden) and puts it in the executed
// notebook, before the runtime may be deleted.

// maxRichOutput bounds the read of one bundle (32 MiB); richOutputBound
// its time (2 min).
const (
	maxRichOutput   = 32 << 20
	richOutputBound = 2 * time.Minute
)

// richOutputs fetches res's rich outputs for the cell what and returns
// them as nbformat outputs, in the order given. A bundle that was
// dropped, or that cannot be fetched or read, is said on stderr and left
// out.
func (rs *runState) richOutputs(what string, res api.ExecuteCodeResult) []map[string]any {
	var outs []map[string]any
	for _, ro := range res.RichOutputs {
		kind := termtext.Cut(strings.Join(ro.MimeTypes, ", "), 80)
		if ro.FilePath == "" {
			rs.v.Note(fmt.Sprintf("%s: rich output %d (%s) was dropped by the server", what, ro.Index, kind))
			continue
		}
		out, err := rs.fetchRichOutput(ro.FilePath)
		if err != nil {
			rs.v.Note(fmt.Sprintf("%s: rich output %d (%s) at %s not fetched: %s", what, ro.Index, kind, termtext.Line(ro.FilePath), termtext.Line(err.Error())))
			continue
		}
		outs = append(outs, out)
	}
	return outs
}

// fetchRichOutput reads the bundle at filePath (an absolute path under
// /content, as Colab names it; any other is refused) and returns it as
// an nbformat output.
func (rs *runState) fetchRichOutput(filePath string) (map[string]any, error) {
	p := path.Clean(filePath)
	if p != filePath || !strings.HasPrefix(p, "/content/") {
		return nil, errors.New("not a path under /content")
	}
	jc, err := rs.client()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(rs.ctx, richOutputBound)
	defer cancel()
	b, err := readRemote(ctx, jc, p)
	if err != nil {
		return nil, err
	}
	return bundleOutput(b)
}

// readRemote reads the remote file p (at most maxRichOutput bytes) with
// one GET of /files/.
func readRemote(ctx context.Context, jc *jupyter.Client, p string) ([]byte, error) {
	remote := jupyter.CleanRemote(p)
	resp, err := jc.Do(ctx, &proxy.Request{Op: "download", Method: http.MethodGet, Path: "files/" + jupyter.EscapePath(remote),
		Retry404: true, Remote: remote})
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxRichOutput+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxRichOutput {
		return nil, fmt.Errorf("larger than %d MiB", maxRichOutput>>20)
	}
	return b, nil
}

// bundleOutput turns a bundle into an nbformat output: a bundle that is
// an output already (display_data, execute_result) is kept; one with
// "data" (and "metadata") is a display_data of them; else the bundle is
// taken as the mime bundle itself ({"image/png": "…"}).
func bundleOutput(b []byte) (map[string]any, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil || raw == nil {
		return nil, errors.New("not a JSON object")
	}
	var kind string
	if t, ok := raw["output_type"]; ok {
		if json.Unmarshal(t, &kind) != nil || kind != "display_data" && kind != "execute_result" {
			return nil, errors.New("not a display output")
		}
	}
	data, meta := raw["data"], raw["metadata"]
	if kind == "" && data == nil {
		data, _ = json.Marshal(raw)
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil || len(obj) == 0 {
		return nil, errors.New("no data in it")
	}
	if meta == nil || string(meta) == "null" {
		meta = json.RawMessage("{}")
	}
	out := map[string]any{"output_type": "display_data", "data": data, "metadata": meta}
	if kind == "execute_result" {
		out["output_type"], out["execution_count"] = kind, raw["execution_count"]
	}
	return out, nil
}
