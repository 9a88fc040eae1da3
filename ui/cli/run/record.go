package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/safefile"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/termtext"
)

// A `colabdash run` that creates a runtime records itself in the state
// directory (runRecordDir) before create_runtime is sent, and removes the
// record once the runtime is deleted (or kept with --keep). The record's
// file stays locked while its process lives; a record nobody holds
// belongs to a run that did not finish (kill -9, a crash, a power cut),
// and its runtime may still be running and costing money.

// RunRecordDir is the state directory's subdirectory of run records.
const RunRecordDir = kit.RunRecordDir

// maxRunRecord bounds the read of one run record (16 KiB).
const maxRunRecord = 16 << 10

// creatingGrace is how long a record whose create never answered is kept
// while its runtime is not listed: Colab may still be creating it.
const creatingGrace = 30 * time.Minute

// runRecord is one run in progress, as stored (JSON). It holds no secret.
type runRecord struct {
	// RequestID is create_runtime's requestId (UUID4).
	RequestID string `json:"requestId"`
	// Runtime is the runtime's name, "runtimes/run-…": chosen before the
	// create is sent, and replaced by the name create_runtime returned.
	Runtime string `json:"runtime"`
	// Created is set once create_runtime answered with the runtime.
	Created bool `json:"created"`
	// Spec is the runtimeSpec asked for ("GPU/T4/STANDARD").
	Spec string `json:"runtimeSpec"`
	// Endpoint and Profile say which account the runtime belongs to: only
	// a run on the same ones reports or deletes it.
	Endpoint string `json:"endpoint"`
	Profile  string `json:"profile"`
	// File is the script or notebook's base name; PID the run's process.
	File string `json:"file"`
	PID  int    `json:"pid"`
	// Started is when the record was written.
	Started time.Time `json:"started"`
}

// runLedger is the record of this process's run, open and locked until
// end.
type runLedger struct {
	f   *os.File
	rec runRecord
}

// beginRun writes rec to the state directory and holds its lock. An error
// means the run must not create anything: it could not be found again
// after a kill -9.
func beginRun(stateDir string, rec runRecord) (*runLedger, error) {
	if stateDir == "" {
		return nil, errors.New("no state directory (set XDG_STATE_HOME or HOME)")
	}
	dir := filepath.Join(stateDir, RunRecordDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if st, err := os.Lstat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	if err := privateRecordDirs(stateDir); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, rec.RequestID+".json"), os.O_RDWR|os.O_CREATE|os.O_EXCL|openRecordFlags, 0o600)
	if err != nil {
		return nil, err
	}
	if _, err := lockRecord(f, true); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	l := &runLedger{f: f, rec: rec}
	if err := l.write(); err != nil {
		l.end()
		return nil, err
	}
	return l, nil
}

// write stores l.rec in place (the lock is on this file, so it is never
// replaced by a rename) and syncs it.
func (l *runLedger) write() error {
	b, err := json.MarshalIndent(l.rec, "", "  ")
	if err != nil {
		return err
	}
	if err := l.f.Truncate(0); err != nil {
		return err
	}
	if _, err := l.f.WriteAt(append(b, '\n'), 0); err != nil {
		return err
	}
	return l.f.Sync()
}

// created records the runtime create_runtime returned.
func (l *runLedger) created(name string) error {
	l.rec.Runtime, l.rec.Created = name, true
	return l.write()
}

// end removes the record and releases it: the run left nothing behind.
func (l *runLedger) end() {
	if l == nil || l.f == nil {
		return
	}
	os.Remove(l.f.Name())
	l.f.Close()
	l.f = nil
}

// release closes the record but keeps it: its runtime may still be there,
// for the next run or status to report.
func (l *runLedger) release() {
	if l == nil || l.f == nil {
		return
	}
	l.f.Close()
	l.f = nil
}

// unfinished is a record of a run that did not finish, locked by this
// process until close.
type unfinished struct {
	rec  runRecord
	f    *os.File
	path string
}

func (u *unfinished) close() { u.f.Close() }

// forget removes the record (its runtime is gone) and closes it.
func (u *unfinished) forget() {
	os.Remove(u.path)
	u.f.Close()
}

// privateRecordDirs refuses a state directory, or its runs directory,
// that another user owns or may write to (safefile.PrivateDir): a record
// planted there could name any runtime.
func privateRecordDirs(stateDir string) error {
	if err := safefile.PrivateDir("state directory", stateDir); err != nil {
		return err
	}
	return safefile.PrivateDir("run record directory", filepath.Join(stateDir, RunRecordDir))
}

// unfinishedRuns returns the records in stateDir of runs that did not
// finish on this endpoint and profile, oldest first, each locked until
// closed. Records of live runs (locked by their process), of other
// accounts, and unreadable ones are skipped, and so is every record that
// is not a regular file the user owns (a link is never followed). The
// error is privateRecordDirs' refusal of the directories: then no record
// is read.
func unfinishedRuns(stateDir, endpoint, profile string) ([]*unfinished, error) {
	if stateDir == "" {
		return nil, nil
	}
	if err := privateRecordDirs(stateDir); err != nil {
		return nil, err
	}
	dir := filepath.Join(stateDir, RunRecordDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil
	}
	var out []*unfinished
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		f, err := os.OpenFile(p, os.O_RDONLY|openRecordFlags, 0)
		if err != nil {
			continue
		}
		if safefile.OwnedFile("run record", f) != nil {
			f.Close() // planted by another user, or not a file
			continue
		}
		if ok, err := lockRecord(f, false); !ok || err != nil {
			f.Close() // a run in progress
			continue
		}
		var rec runRecord
		b, err := io.ReadAll(io.LimitReader(f, maxRunRecord))
		if err != nil || json.Unmarshal(b, &rec) != nil || rec.Runtime == "" || rec.Endpoint != endpoint || rec.Profile != profile {
			f.Close()
			continue
		}
		out = append(out, &unfinished{rec: rec, f: f, path: p})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rec.Started.Before(out[j].rec.Started) })
	return out, nil
}

// leftovers are the unfinished runs whose runtime is still listed, each
// with that runtime. Records whose runtime is gone are removed on the
// way (a create that never answered is given creatingGrace first).
func leftovers(stateDir, endpoint, profile string, rts []api.Runtime, now time.Time) ([]*unfinished, []api.Runtime, error) {
	var (
		us  []*unfinished
		got []api.Runtime
	)
	all, err := unfinishedRuns(stateDir, endpoint, profile)
	for _, u := range all {
		i := -1
		for j, rt := range rts {
			if rt.Name == u.rec.Runtime {
				i = j
			}
		}
		if i >= 0 {
			us, got = append(us, u), append(got, rts[i])
		} else if u.rec.Created || now.Sub(u.rec.Started) > creatingGrace {
			u.forget()
		} else {
			u.close()
		}
	}
	return us, got, err
}

// leftoverLine says which runtime an unfinished run left.
func leftoverLine(u *unfinished, rt api.Runtime) string {
	return fmt.Sprintf("runtime %s (%s) was created by a run that did not finish (%s, started %s, pid %d) and is still there",
		termtext.Cut(rt.ID(), 63), termtext.Cut(rt.RuntimeSpec.String(), 60), termtext.Cut(u.rec.File, 80),
		u.rec.Started.Local().Format("2006-01-02 15:04 MST"), u.rec.PID)
}

// runAccount is the endpoint and profile a run record is filed under.
func (v *verb) runAccount(conn *kit.Connection) (endpoint, profile string) {
	return conn.Endpoint, v.G.Profile.Name
}

// leftoverLines says which runtimes of rts unfinished runs left, and how
// to delete them; it asks nothing (status, the dashboard's start).
func leftoverLines(v *verb, endpoint string, rts []api.Runtime) []string {
	if v.demo() {
		return nil
	}
	us, got, err := leftovers(kit.StateDir(), endpoint, v.G.Profile.Name, rts, time.Now())
	if err != nil {
		return []string{"run records not read: " + err.Error()}
	}
	var lines []string
	for i, u := range us {
		lines = append(lines, leftoverLine(u, got[i])+"; delete it with: "+v.G.CommandOr("colabdash run --reap", "run", "--reap"))
		u.close()
	}
	return lines
}

// NoteLeftovers writes leftoverLines on stderr (status).
func NoteLeftovers(kv *kit.Verb, conn *kit.Connection, rts []api.Runtime) {
	v := &verb{kv}
	for _, line := range leftoverLines(v, conn.Endpoint, rts) {
		v.Note(line)
	}
}

// reapLeftovers deletes the runtimes of unfinished runs: all of them
// (ask false: run --reap --yes), or each one the user answers y for on a
// terminal (each question names the runtime); off a terminal, with ask,
// each is only named. It returns the runtimes deleted, how many
// leftovers it found (deleted, kept or failed), and the first failure; a
// state directory others may write to is refused (exit 2) before any
// record is read.
func (v *verb) reapLeftovers(ctx context.Context, conn *kit.Connection, ask bool) (deleted []string, found int, first error) {
	if v.demo() {
		return nil, 0, nil
	}
	endpoint, profile := v.runAccount(conn)
	stateDir := kit.StateDir()
	us, err := unfinishedRuns(stateDir, endpoint, profile)
	if err != nil {
		return nil, 0, &kit.ExitError{Code: kit.ExitUsage, Msg: err.Error()}
	}
	for _, u := range us {
		u.close()
	}
	if len(us) == 0 {
		return nil, 0, nil // no record: nothing to list runtimes for
	}
	rts, err := kit.ListRuntimes(ctx, conn)
	if err != nil {
		return nil, 0, err
	}
	us, got, err := leftovers(stateDir, endpoint, profile, rts, time.Now())
	if err != nil {
		return nil, 0, &kit.ExitError{Code: kit.ExitUsage, Msg: err.Error()}
	}
	for i, u := range us {
		rt := got[i]
		if ask {
			if !v.CanPrompt() {
				v.Note(leftoverLine(u, rt) + "; delete it with: " + v.G.CommandOr("colabdash run --reap", "run", "--reap"))
				u.close()
				continue
			}
			yes, err := v.Confirm(ctx, "colabdash: run: "+leftoverLine(u, rt)+".\nDelete it? Type y to delete (anything else keeps it): ", "y", "nothing was deleted")
			if err != nil {
				u.close()
				for _, rest := range us[i+1:] {
					rest.close()
				}
				return deleted, len(us), err
			}
			if !yes {
				v.Note("kept " + termtext.Cut(rt.ID(), 63) + " (" + v.G.CommandOr("colabdash run --reap", "run", "--reap") + " deletes it later)")
				u.close()
				continue
			}
		}
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), deleteBound)
		err := conn.Svc.DeleteRuntime(dctx, rt.Name)
		cancel()
		if ae := kit.AsAPIError(err); err != nil && (ae == nil || ae.Code != api.NotFound) {
			v.Note("could not delete " + termtext.Cut(rt.ID(), 63) + ": " + kit.Classify(err, conn.Creds).Msg)
			if first == nil {
				first = kit.Classify(err, conn.Creds)
			}
			u.close()
			continue
		}
		deleted = append(deleted, rt.Name)
		v.Note("deleted " + termtext.Cut(rt.ID(), 63) + ", left by an unfinished run")
		u.forget()
	}
	return deleted, len(us), first
}

// DashboardLeftovers are the dashboard's start notices: the runtimes
// unfinished runs left (one list_runtimes, at most 10 s; nothing when it
// fails: the dashboard reports its own calls).
func DashboardLeftovers(ctx context.Context, g kit.Globals, conn *kit.Connection) []string {
	v := newVerb(&g, nil, "dashboard")
	if v.demo() {
		return nil
	}
	us, err := unfinishedRuns(kit.StateDir(), conn.Endpoint, g.Profile.Name)
	if err != nil {
		return []string{"run records not read: " + err.Error()}
	}
	for _, u := range us {
		u.close()
	}
	if len(us) == 0 {
		return nil
	}
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rts, err := conn.Svc.ListRuntimes(lctx)
	if err != nil {
		return nil
	}
	return leftoverLines(v, conn.Endpoint, rts)
}
