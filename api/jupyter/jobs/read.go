package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"sync"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// MaxRecordFile bounds spec.json and status.json as read back from a
// runtime (64 KiB each): the supervisor writes a few hundred bytes, and
// anything larger is not ours.
const MaxRecordFile = 64 << 10

// ErrBadRecord: a job's spec.json or status.json that is not what the
// client or the supervisor writes (too large, not the expected JSON, a
// spec naming another id). List skips such jobs.
var ErrBadRecord = errors.New("unreadable job record")

// listWorkers is how many jobs List reads at once.
const listWorkers = 4

// readSmall reads the text file p through the contents API (GET
// api/contents/P?content=1&format=text), at most MaxRecordFile bytes of
// content, and its last_modified. The reply is bounded before it is
// decoded: JSON escapes at most sextuple a byte.
func readSmall(ctx context.Context, jc *jupyter.Client, op, p string) ([]byte, proxy.Model, error) {
	ctx, cancel := context.WithTimeout(ctx, jc.Options().CallTimeout)
	defer cancel()
	resp, err := jc.Do(ctx, &proxy.Request{Op: op, Method: http.MethodGet, Path: "api/contents/" + proxy.EscapePath(p),
		Query: url.Values{"content": {"1"}, "type": {"file"}, "format": {"text"}}, Retry404: true, Remote: p})
	var je *jupyter.Error
	switch {
	case errors.As(err, &je) && je.Status == http.StatusBadRequest:
		// Jupyter's answer for a file that is not UTF-8 text (or not a
		// file): no record of ours.
		return nil, proxy.Model{}, badRecord(jc, op, p, "not a text file")
	case err != nil:
		return nil, proxy.Model{}, err
	}
	defer resp.Body.Close()
	const limit = 6*MaxRecordFile + 4096
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, proxy.Model{}, context.Cause(ctx)
		}
		return nil, proxy.Model{}, &jupyter.Error{Op: op, Runtime: jc.Runtime(), Path: p, Kind: jupyter.ErrTransport, Message: proxy.StripURL(err)}
	}
	if len(b) > limit {
		return nil, proxy.Model{}, badRecord(jc, op, p, fmt.Sprintf("larger than %d bytes", MaxRecordFile))
	}
	m, err := proxy.ParseModel(b)
	if err != nil {
		return nil, m, badRecord(jc, op, p, "not a contents model")
	}
	var w struct {
		Content *string `json:"content"`
	}
	if err := json.Unmarshal(proxy.TrimXSSI(b), &w); err != nil || w.Content == nil {
		return nil, m, badRecord(jc, op, p, "the reply has no text content")
	}
	if len(*w.Content) > MaxRecordFile {
		return nil, m, badRecord(jc, op, p, fmt.Sprintf("larger than %d bytes", MaxRecordFile))
	}
	return []byte(*w.Content), m, nil
}

// badRecord is an *jupyter.Error of kind ErrServer wrapping ErrBadRecord.
func badRecord(jc *jupyter.Client, op, p, why string) error {
	return fmt.Errorf("%w: %w", ErrBadRecord, &jupyter.Error{Op: op, Runtime: jc.Runtime(), Path: p, Kind: jupyter.ErrServer, Message: why})
}

// Read reads job id: spec.json and status.json (two small GETs of the
// contents API, each bounded to MaxRecordFile). Record.Status is nil
// while status.json does not exist (the supervisor has not started yet);
// Record.Modified is status.json's last_modified (zero without one);
// LogSize is -1. Errors: ErrBadID; jupyter.ErrNotFound (no such job: no
// spec.json); ErrBadRecord (wrapping a *jupyter.Error) for a record that
// is not ours; the client's others.
func Read(ctx context.Context, jc *jupyter.Client, id string) (Record, error) {
	if err := ValidID(id); err != nil {
		return Record{}, err
	}
	dir := Dir(id)
	rec := Record{Runtime: "runtimes/" + jc.Runtime(), LogSize: -1}
	b, _, err := readSmall(ctx, jc, "read job", dir+"/"+SpecFile)
	if err != nil {
		return Record{}, err
	}
	if err := json.Unmarshal(b, &rec.Spec); err != nil {
		return Record{}, badRecord(jc, "read job", dir+"/"+SpecFile, "not a job spec")
	}
	if rec.Spec.ID != id {
		return Record{}, badRecord(jc, "read job", dir+"/"+SpecFile, "the spec names another job")
	}
	b, m, err := readSmall(ctx, jc, "read job", dir+"/"+StatusFile)
	switch {
	case errors.Is(err, jupyter.ErrNotFound):
		return rec, nil
	case err != nil:
		return Record{}, err
	}
	var st Status
	if err := json.Unmarshal(b, &st); err != nil || st.Pid < 0 || st.Signal < 0 {
		return Record{}, badRecord(jc, "read job", dir+"/"+StatusFile, "not a job status")
	}
	st.Error = api.OneLine(st.Error, 500)
	rec.Status, rec.Modified = &st, m.LastModified
	return rec, nil
}

// The bounds of List: a runtime's jobs directory is read up to
// MaxListed entries (a larger one is refused), and of its jobs only the
// MaxJobs whose directories changed last (a running job's changes every
// HeartbeatEvery) are read.
const (
	MaxListed = 10000
	MaxJobs   = 200
)

// ErrTooManyJobs: the jobs directory holds more than MaxListed entries.
var ErrTooManyJobs = errors.New("too many entries in the jobs directory")

// List reads the jobs of the runtime jc reaches (one listing of Root,
// then Read's two requests per job, a few jobs at a time), newest first
// (by Spec.Created, then id): at most MaxJobs of them, those whose
// directories changed last; a runtime without the jobs directory has
// none. Entries whose name fails ValidID are skipped, and so are jobs
// Read finds without a spec.json (one being prepared) or with
// ErrBadRecord. Errors: ErrTooManyJobs past MaxListed entries; the
// client's (the first one met).
func List(ctx context.Context, jc *jupyter.Client) ([]Record, error) {
	type entry struct {
		id  string
		mod time.Time
	}
	var found []entry
	_, _, err := jc.ListEach(ctx, Root, func(e jupyter.Model) error {
		if len(found) == MaxListed {
			return fmt.Errorf("%w: more than %d (a runtime of ours holds a few)", ErrTooManyJobs, MaxListed)
		}
		if e.IsDir() && ValidID(e.Name) == nil {
			found = append(found, entry{e.Name, e.LastModified})
		}
		return nil
	})
	switch {
	case errors.Is(err, jupyter.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, err
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].mod.After(found[j].mod) })
	ids := make([]string, 0, min(len(found), MaxJobs))
	for _, e := range found[:min(len(found), MaxJobs)] {
		ids = append(ids, e.id)
	}
	recs := make([]*Record, len(ids))
	errs := make([]error, len(ids))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(listWorkers, len(ids)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r, err := Read(ctx, jc, ids[i])
				switch {
				case err == nil:
					recs[i] = &r
				case !errors.Is(err, jupyter.ErrNotFound) && !errors.Is(err, ErrBadRecord):
					errs[i] = err
				}
			}
		}()
	}
	for i := range ids {
		next <- i
	}
	close(next)
	wg.Wait()
	var out []Record
	for i, r := range recs {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if r != nil {
			out = append(out, *r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Spec.Created.Equal(out[j].Spec.Created) {
			return out[i].Spec.Created.After(out[j].Spec.Created)
		}
		return out[i].Spec.ID < out[j].Spec.ID
	})
	return out, nil
}
