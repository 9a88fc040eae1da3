package cli

// Why this file is over 400 lines: ls, cp and rm share RUNTIME:PATH parsing, completion and the transfer plumbing.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"regexp"
	"strings"
	"sync"
	"time"

	xterm "github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui"
	"github.com/colabdash/colabdash/ui/termtext"
)

// exitNoSuchFile is the exit code of the file commands (ls, cp, rm,
// forward) when a local or remote path does not exist, beyond the common
// ones (0 ok, 1 failure, 2 usage, 3 credentials, 4 API or network, 5
// quota, 130 interrupted).
const exitNoSuchFile = 6

// fileCommands are ls, cp, rm and forward. They are verbs like exec and
// delete: the same RUNTIME resolution (id, name or unique prefix), the
// same completion of runtime ids (cached), human lines through the
// sanitizer and the redactor, and JSON through verb.writeJSON with its
// error fields redacted.
func fileCommands(g *globalFlags, s *streams) []*cobra.Command {
	return []*cobra.Command{lsCmd(g, s), cpCmd(g, s), rmCmd(g, s), forwardCmd(g, s)}
}

const filesExitCodes = "Exit codes: 0 ok, 1 failure (local error, corrupt copy), 2 usage (a directory without -r), 3 credentials, " +
	"4 API or network (runtime gone, proxy unreachable), 6 no such file or directory, 128 + a signal (130 ctrl+c, 143 SIGTERM).\n" +
	"With --json, stdout holds exactly one JSON object whatever the outcome: \"ok\" says whether it succeeded, \"error\" why not."

// jsonOnFailure wraps a file verb's RunE: with --json, a failure that
// printed no document yet (a bad argument, an unknown runtime, no
// connection) prints doc(why) on stdout, so ls, cp and rm always print
// exactly one JSON object, "ok" false and "error" (redacted) on failure.
// The exit code and the stderr line are the failure's own.
func (v *verb) jsonOnFailure(run func(cmd *cobra.Command, args []string) error, doc func(why string) any) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		err := run(cmd, args)
		if err == nil || !v.asJSON || v.wroteJSON {
			return err
		}
		why := err.Error()
		if ee := fileError(err, nil); ee != nil {
			why = ee.msg
		}
		if jerr := v.writeJSON(doc(v.red().Redact(why))); jerr != nil {
			return jerr
		}
		return err
	}
}

// runtimeFiles is an open Jupyter client on one runtime.
type runtimeFiles struct {
	conn *connection
	jc   *jupyter.Client
	rt   api.Runtime   // the runtime, as get_runtime returned it
	rts  []api.Runtime // the runtimes listed to resolve the argument
}

// id is the runtime's id for messages, sanitized ("rt-abc").
func (rf *runtimeFiles) id() string { return termtext.Cut(rf.rt.ID(), 63) }

// openRuntime connects, resolves arg (rt-abc, runtimes/rt-abc or a prefix
// of exactly one live id, as every verb does) and builds a Jupyter client
// for that runtime (its token fresh from get_runtime, renewed the same
// way). typed is cp's argument as typed, for the "did you mean a local
// file" hint ("" for commands without local arguments). The caller
// closes rf.conn.
func (v *verb) openRuntime(ctx context.Context, arg, typed string) (*runtimeFiles, error) {
	conn, err := v.connect(ctx)
	if err != nil {
		return nil, err
	}
	rts, err := listRuntimes(ctx, conn)
	if err != nil {
		conn.close()
		return nil, err
	}
	found, missing, ee := lookupRuntime(rts, arg)
	if ee != nil {
		conn.close()
		if missing && strings.Contains(typed, ":") {
			ee.msg += fmt.Sprintf(" (to name a local file with a colon, write ./%s)", termtext.Cut(typed, 80))
		}
		return nil, ee
	}
	name := found.Name
	rt, err := conn.svc.GetRuntime(ctx, name)
	if err != nil {
		conn.close()
		return nil, classify(err, conn.creds)
	}
	if rt.ConnectionInfo == nil || rt.ConnectionInfo.URL == "" {
		conn.close()
		return nil, &exitError{exitAPI, fmt.Sprintf("runtime %s has no connectionInfo yet (is it still starting?)", termtext.Cut(found.ID(), 63))}
	}
	g := v.g
	jc, err := jupyter.New(jupyter.Options{
		Runtime:  name,
		Info:     *rt.ConnectionInfo,
		Redactor: g.logs.red,
		Logger:   g.logs.log,
		Renew: func(ctx context.Context) (api.ConnectionInfo, error) {
			rt, err := conn.svc.GetRuntime(ctx, name)
			if err != nil {
				return api.ConnectionInfo{}, err
			}
			if rt.ConnectionInfo == nil {
				return api.ConnectionInfo{}, errors.New("get_runtime returned no connectionInfo")
			}
			return *rt.ConnectionInfo, nil
		},
	})
	if err != nil {
		conn.close()
		return nil, fileError(err, nil)
	}
	return &runtimeFiles{conn: conn, jc: jc, rt: rt, rts: rts}, nil
}

// fileError turns a file-command failure into its exit code and one line.
func fileError(err error, rf *runtimeFiles) *exitError {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee
	}
	var je *jupyter.Error
	if errors.As(err, &je) {
		code := exitFailure
		switch je.Kind {
		case jupyter.ErrIsDir:
			if je.Message == "" { // a directory named without -r: the flag is missing
				code = exitUsage
			}
		case jupyter.ErrTopLevel:
			code = exitUsage
		case jupyter.ErrNotFound, jupyter.ErrHidden, jupyter.ErrNoParent, jupyter.ErrLocalNotFound:
			code = exitNoSuchFile
		case jupyter.ErrRuntimeGone, jupyter.ErrRefused, jupyter.ErrTransport, jupyter.ErrServer,
			jupyter.ErrRedirect, jupyter.ErrNoConnection:
			code = exitAPI
		case jupyter.ErrInterrupted:
			code = exitInterrupted
		}
		return &exitError{code, api.OneLine(je.Error(), 0)}
	}
	if errors.Is(err, context.Canceled) {
		return &exitError{exitInterrupted, "interrupted"}
	}
	if rf != nil {
		return classify(err, rf.conn.creds)
	}
	return classify(err, nil)
}

// completeRuntimeColon completes the RUNTIME of RUNTIME:PATH with the
// live runtime ids and a colon ("rt-abc:"), from the same cache as every
// verb's runtime completion; once a colon is typed, the remote paths
// (completeRemote).
func (v *verb) completeRuntimeColon(cmd *cobra.Command, toComplete string, dirsOnly bool) ([]string, cobra.ShellCompDirective) {
	if strings.Contains(toComplete, ":") {
		return completeRemote(cmd, v.g, toComplete, dirsOnly)
	}
	ids, dir := v.completeRuntimes(cmd, nil, toComplete)
	for i, id := range ids {
		id, desc, _ := strings.Cut(id, "\t")
		ids[i] = id + ":\t" + desc
	}
	return ids, dir | cobra.ShellCompDirectiveNoSpace
}

func lsCmd(g *globalFlags, s *streams) *cobra.Command {
	v := newVerb(g, s, "ls")
	// got is what a failure's --json says of the target: the path once
	// read, the runtime once resolved.
	var got lsJSON
	cmd := &cobra.Command{
		Use:   "ls RUNTIME[:PATH]",
		Short: "List a directory (or show a file) on a runtime",
		Long: "ls lists a directory on a runtime through its Jupyter server (the runtime proxy): size, time\n" +
			"modified and name, directories ending in \"/\". RUNTIME is the id (rt-abc), runtimes/rt-abc or a unique prefix;\n" +
			"PATH is absolute on the runtime (/ is its root, holding content/), with or without its leading\n" +
			"slash, and defaults to /content when RUNTIME: has none. --json names paths absolute (\"/content/x\").\n" +
			"Hidden names (starting with \".\") are not listed by Jupyter.\n" + filesExitCodes,
		Example: "  colabdash ls rt-abc\n  colabdash ls rt-abc:/content/sample_data\n  colabdash ls rt-abc:content --json",
		Args:    cobra.ExactArgs(1),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return v.completeRuntimeColon(cmd, toComplete, true)
		},
		RunE: v.jsonOnFailure(func(cmd *cobra.Command, args []string) error {
			// A bare RUNTIME (no colon) is its default directory,
			// /content; it is resolved like every verb's RUNTIME, so "rt-"
			// and "RT-C" get the same errors as "rt".
			loc := jupyter.Location{Runtime: strings.TrimPrefix(strings.TrimSpace(args[0]), "runtimes/"), Path: "content", Dir: true}
			if strings.Contains(args[0], ":") {
				var err error
				if loc, err = jupyter.ParseLocation(args[0], true); err != nil {
					return &exitError{exitUsage, err.Error()}
				}
			}
			got.Path = absRemote(loc.Path)
			ctx := cmd.Context()
			rf, err := v.openRuntime(ctx, loc.Runtime, "")
			if err != nil {
				return err
			}
			defer rf.conn.close()
			loc.Runtime = rf.rt.ID()
			got.Runtime = loc.Runtime
			m, err := rf.jc.Stat(ctx, loc.Path)
			if err == nil && m.IsDir() && !v.asJSON {
				// Printed as it arrives (files_ls.go).
				if err := v.lsStream(ctx, rf.jc, loc.Path); err != nil {
					return fileError(err, rf)
				}
				return nil
			}
			if err == nil && m.IsDir() {
				m, err = rf.jc.List(ctx, loc.Path)
			} else if err == nil {
				m.Entries = []jupyter.Model{m}
			}
			if err != nil {
				return fileError(err, rf)
			}
			if v.asJSON {
				return v.writeJSON(lsReport(loc, m))
			}
			v.say(listingLine(v.red(), m))
			return nil
		}, func(why string) any {
			return lsJSON{Error: why, Runtime: got.Runtime, Path: got.Path, Entries: []lsEntry{}}
		}),
	}
	cmd.Flags().BoolVar(&v.asJSON, "json", false, "print JSON: {ok, error, runtime, path, type, entries:[{name, path, type, size, lastModified}]}")
	return cmd
}

// lsEntry is one entry of `ls --json`. Size is -1 for directories;
// LastModified is RFC 3339 UTC ("" when unknown).
type lsEntry struct {
	Name         string `json:"name"`
	Path         string `json:"path"`
	Type         string `json:"type"`
	Size         int64  `json:"size"`
	LastModified string `json:"lastModified"`
}

func lsReport(loc jupyter.Location, m jupyter.Model) any {
	entries := make([]lsEntry, 0, len(m.Entries))
	for _, e := range m.Entries {
		lm := ""
		if !e.LastModified.IsZero() {
			lm = e.LastModified.UTC().Format(time.RFC3339)
		}
		entries = append(entries, lsEntry{Name: e.Name, Path: absRemote(e.Path), Type: e.Type, Size: e.Size, LastModified: lm})
	}
	return lsJSON{OK: true, Runtime: loc.Runtime, Path: absRemote(loc.Path), Type: m.Type, Entries: entries}
}

// lsJSON is `ls --json`'s output. On failure OK is false, Error says why
// (redacted), Runtime is the runtime's id once resolved and Path the
// absolute path once read ("" before), Type is "" and Entries is [].
type lsJSON struct {
	OK      bool      `json:"ok"`
	Error   string    `json:"error,omitempty"`
	Runtime string    `json:"runtime"`
	Path    string    `json:"path"`
	Type    string    `json:"type"`
	Entries []lsEntry `json:"entries"`
}

// absRemote writes a remote path (Jupyter's form, relative to the
// runtime's root: "content/x", "" for the root) as every output of ls, cp
// and rm names it: absolute on the runtime ("/content/x", "/").
func absRemote(p string) string { return "/" + jupyter.CleanRemote(p) }

// absRemoteArg rewrites a remote side written RUNTIME:PATH in Jupyter's
// form ("rt-abc:content/x", as jupyter.FileResult has it) with PATH
// absolute ("rt-abc:/content/x"). Runtime ids hold no colon.
func absRemoteArg(s string) string {
	id, p, ok := strings.Cut(s, ":")
	if !ok {
		return s
	}
	return id + ":" + absRemote(p)
}

func rmCmd(g *globalFlags, s *streams) *cobra.Command {
	v := newVerb(g, s, "rm")
	var recursive, purge, yes bool
	cmd := &cobra.Command{
		Use:   "rm RUNTIME:PATH...",
		Short: "Remove files (or directories with -r) on a runtime",
		Long: "rm removes files on a runtime through its Jupyter server; -r removes a directory and everything\n" +
			"listed in it, children first. Jupyter does not list hidden names, so a directory holding hidden\n" +
			"files cannot be removed this way (the error says so). Removing asks for no confirmation.\n\n" +
			"A stock Jupyter server moves what it deletes to its trash (~/.local/share/Trash), where it still\n" +
			"uses the runtime's disk. --purge also empties that trash, through execute_code, after asking\n" +
			"(only y confirms; without a terminal pass --yes); \"rm --purge RUNTIME\" only empties it.\n" + filesExitCodes,
		Example: "  colabdash rm rt-abc:/content/old.csv\n  colabdash rm -r rt-abc:/content/checkpoints\n" +
			"  colabdash rm --purge -r rt-abc:/content/checkpoints\n  colabdash rm --purge rt-abc --yes",
		Args: cobra.MinimumNArgs(1),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			return v.completeRuntimeColon(cmd, toComplete, false)
		},
		RunE: v.jsonOnFailure(func(cmd *cobra.Command, args []string) error {
			if purge && !yes && !v.canPrompt() { // before anything is removed
				return &exitError{exitUsage, "rm --purge asks before emptying the runtime's trash: stdin or stderr is not a terminal; pass --yes"}
			}
			var locs []jupyter.Location
			trashOnly := ""
			for _, a := range args {
				if purge && len(args) == 1 && !strings.Contains(a, ":") {
					trashOnly = a // rm --purge RUNTIME: only the trash
					break
				}
				loc, err := jupyter.ParseLocation(a, true)
				if err != nil {
					return &exitError{exitUsage, err.Error()}
				}
				locs = append(locs, loc)
			}
			if trashOnly != "" {
				return v.purgeOnly(cmd.Context(), trashOnly, yes)
			}
			// RUNTIME is resolved before any path rule, as README says:
			// "rm rt-zz:/x" is "no runtime", not a refusal of /x.
			ctx := cmd.Context()
			rf, err := v.openRuntime(ctx, locs[0].Runtime, "")
			if err != nil {
				return err
			}
			defer rf.conn.close()
			for i := range locs { // every argument names the same runtime, however written
				rt, err := resolveRuntime(rf.rts, locs[i].Runtime)
				if err != nil {
					return err
				}
				if rt.Name != rf.rt.Name {
					return &exitError{exitUsage, "rm works on one runtime at a time"}
				}
				locs[i].Runtime = rf.rt.ID()
			}
			for _, loc := range locs { // before removing anything
				if err := jupyter.Removable(loc.Runtime, loc.Path); err != nil {
					return &exitError{exitUsage, api.OneLine(err.Error(), 0)} // the files pane's rule too
				}
			}
			removed := []string{}
			var failure error
			for _, loc := range locs {
				m, err := rf.jc.Stat(ctx, loc.Path)
				if err == nil && m.IsDir() && !recursive {
					err = &jupyter.Error{Op: "rm", Runtime: loc.Runtime, Path: loc.Path, Kind: jupyter.ErrIsDir}
				}
				if err == nil {
					err = rf.jc.RemoveAll(ctx, loc.Path, func(p string) {
						removed = append(removed, loc.Runtime+":"+absRemote(p))
						if !v.asJSON {
							v.say("removed " + rf.id() + ":" + termtext.Line(jupyter.DisplayName(absRemote(p))))
						}
					})
				}
				if err != nil {
					failure = err
					break
				}
			}
			var purged *int64
			var perr error
			if purge && failure == nil {
				purged, perr = v.purgeTrash(ctx, rf, yes)
			} else if len(removed) > 0 {
				v.note(jupyter.TrashNote(purgeCommand(v.g, rf)))
			}
			if v.asJSON {
				rep := rmReport{Removed: removed, OK: failure == nil && perr == nil, PurgedBytes: purged}
				if failure != nil {
					rep.Error = v.red().Redact(fileError(failure, rf).msg)
				} else if perr != nil {
					rep.Error = v.red().Redact(fileError(perr, rf).msg)
				}
				if err := v.writeJSON(rep); err != nil {
					return err
				}
			}
			if failure != nil {
				return fileError(failure, rf)
			}
			if perr != nil {
				return fileError(perr, rf)
			}
			return nil
		}, func(why string) any { return rmReport{Removed: []string{}, Error: why} }),
	}
	cmd.Flags().BoolVar(&purge, "purge", false, "also empty the runtime's trash, where its Jupyter server keeps deleted files (asks first)")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "with --purge: empty the trash without asking (needed without a terminal)")
	cmd.Flags().BoolVarP(&recursive, "recursive", "r", false, "remove directories and their contents")
	cmd.Flags().BoolVar(&v.asJSON, "json", false, "print a JSON summary: {removed: [...], ok, error}")
	return cmd
}

// rmReport is `rm --json`'s output: the remote paths removed
// ("rt-abc:/content/x"), whether all went well, and why not (redacted).
type rmReport struct {
	Removed []string `json:"removed"`
	OK      bool     `json:"ok"`
	Error   string   `json:"error,omitempty"`
	// PurgedBytes is what --purge freed by emptying the runtime's trash
	// (absent without --purge, or when the trash was not emptied).
	PurgedBytes *int64 `json:"purgedBytes,omitempty"`
}

func cpCmd(g *globalFlags, s *streams) *cobra.Command {
	v := newVerb(g, s, "cp")
	var recursive bool
	cmd := &cobra.Command{
		Use:   "cp SRC DST",
		Short: "Copy files to or from a runtime (RUNTIME:PATH on one side)",
		Long: "cp copies a file (or a directory with -r) between this machine and a runtime, through the\n" +
			"runtime's Jupyter server. One side is RUNTIME:PATH, as in kubectl cp: RUNTIME is the id (rt-abc),\n" +
			"runtimes/rt-abc or a unique prefix, PATH absolute on the runtime with or without its leading slash. An argument\n" +
			"that exists locally, or starts with ./ ../ / or a drive letter, is local.\n\n" +
			"Destination rule (the same both ways): a file goes to DST, or into DST under its own name when\n" +
			"DST ends in / or is an existing directory; a directory (-r) is copied AS DST, created when\n" +
			"missing (its parent must exist) and merged into when present. Running the same command twice\n" +
			"never nests (no proj/proj). Below a local destination nothing is written through a symbolic\n" +
			"link: such an entry is refused in one line naming it, the rest is copied, and cp exits 1.\n\n" +
			"An upload that fits one request (under 50 MB) is PUT onto NAME; a larger one goes in chunks to\n" +
			"NAME.colabdash-part, is checked by size and renamed into place (a proxy's 413 makes the pieces\n" +
			"smaller, down to 1 MiB). Downloads stream to NAME.colabdash-part beside the target, resume with Range after a\n" +
			"dropped connection and are renamed into place only when complete. A proxy token that expires\n" +
			"during a transfer is renewed (get_runtime) without restarting it. Hidden files (names starting\n" +
			"with \".\") are not served by Jupyter: cp -r skips them on upload and says how many.\n\n" +
			"A progress bar (bytes, rate, ETA) is drawn on stderr when it is a terminal; each file copied is\n" +
			"one line on stdout; --json prints only a final summary on stdout.\n" + filesExitCodes,
		Example: "  colabdash cp ./data.csv rt-abc:/content/\n" +
			"  colabdash cp rt-abc:/content/model.pt .\n" +
			"  colabdash cp -r ./proj rt-abc:/content/proj\n" +
			"  colabdash cp -r rt-abc:/content/outputs ./outputs --json",
		Args: cobra.ExactArgs(2),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) >= 2 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			if strings.Contains(toComplete, ":") {
				return v.completeRuntimeColon(cmd, toComplete, false)
			}
			if toComplete != "" && idPrefix.MatchString(toComplete) {
				// Could be a runtime id: offer "rt-abc:" when one matches,
				// else local files.
				if ids, dir := v.completeRuntimeColon(cmd, toComplete, false); len(ids) > 0 {
					return ids, dir
				}
			}
			return nil, cobra.ShellCompDirectiveDefault // local files
		},
		RunE: v.jsonOnFailure(func(cmd *cobra.Command, args []string) error {
			src, err := jupyter.ParseLocation(args[0], false)
			if err != nil {
				return &exitError{exitUsage, err.Error()}
			}
			dst, err := jupyter.ParseLocation(args[1], false)
			if err != nil {
				return &exitError{exitUsage, err.Error()}
			}
			switch {
			case src.Remote() && dst.Remote():
				return &exitError{exitUsage, "both sides are on a runtime; copy through this machine (cp to a local path, then back)"}
			case !src.Remote() && !dst.Remote():
				return &exitError{exitUsage, "neither side is RUNTIME:PATH (e.g. rt-abc:/content/)" + colonHint(args)}
			}
			if !src.Remote() {
				st, err := os.Stat(src.Path)
				if errors.Is(err, fs.ErrNotExist) {
					// Before connecting: a missing local file is the user's to fix.
					return fileError(&jupyter.Error{Op: "upload", Kind: jupyter.ErrLocalNotFound, Message: src.Path}, nil)
				} else if err != nil { // permission denied, I/O: say so, not "no such file"
					return fileError(&jupyter.Error{Op: "upload", Kind: jupyter.ErrLocal, Message: err.Error()}, nil)
				}
				if st.IsDir() && !recursive {
					return &exitError{exitUsage, fmt.Sprintf("upload: %s is a directory (use -r)", termtext.Cut(src.Path, 200))}
				}
			}
			rt := src.Runtime + dst.Runtime
			arg := args[0]
			if dst.Remote() {
				arg = args[1]
			}
			ctx := cmd.Context()
			rf, err := v.openRuntime(ctx, rt, arg)
			if err != nil {
				return err
			}
			defer rf.conn.close()
			return v.runCopy(ctx, rf, src, dst, recursive)
		}, func(why string) any { return copySummary{Error: why, Files: []copiedFile{}} }),
	}
	cmd.Flags().BoolVarP(&recursive, "recursive", "r", false, "copy directories")
	cmd.Flags().BoolVar(&v.asJSON, "json", false, "print only a JSON summary on stdout: {ok, error, files:[{src, dst, bytes, seconds}], bytes, seconds}")
	return cmd
}

// copySummary is `cp --json`'s output: always one object, ok false with
// error set on failure (the exit code is non-zero then too).
type copySummary struct {
	OK      bool         `json:"ok"`
	Error   string       `json:"error,omitempty"`
	Files   []copiedFile `json:"files"`
	Bytes   int64        `json:"bytes"`
	Seconds float64      `json:"seconds"`
}

type copiedFile struct {
	Src     string  `json:"src"`
	Dst     string  `json:"dst"`
	Bytes   int64   `json:"bytes"`
	Seconds float64 `json:"seconds"`
}

func (v *verb) runCopy(ctx context.Context, rf *runtimeFiles, src, dst jupyter.Location, recursive bool) error {
	tty := v.s.errTTY
	width := 80
	if f, ok := v.s.err.(*os.File); ok && tty {
		if w, _, err := xterm.GetSize(f.Fd()); err == nil {
			width = w
		}
	}
	view := newTransferView(v.s.err, tty, ui.NoColorFromEnv(), width)
	sum := copySummary{Files: []copiedFile{}}
	start := time.Now()
	var warned sync.Map
	deleted := false // an upload replaced a file by deleting it (case 62)
	opts := jupyter.CopyOptions{
		Recursive: recursive,
		Progress:  view.update,
		OnFile: func(r jupyter.FileResult) {
			view.clear()
			if dst.Remote() {
				r.Dst = absRemoteArg(r.Dst)
			} else {
				r.Src = absRemoteArg(r.Src)
			}
			sum.Files = append(sum.Files, copiedFile{Src: r.Src, Dst: r.Dst, Bytes: r.Bytes, Seconds: r.Duration.Seconds()})
			sum.Bytes += r.Bytes
			deleted = deleted || r.Deleted
			if !v.asJSON {
				rate := ""
				if s := r.Duration.Seconds(); s > 0 {
					rate = ", " + state.FormatBytes(int64(float64(r.Bytes)/s)) + "/s"
				}
				v.say(fmt.Sprintf("%s → %s (%s in %.1f s%s)", termtext.Line(jupyter.DisplayName(r.Src)), termtext.Line(jupyter.DisplayName(r.Dst)),
					state.FormatBytes(r.Bytes), r.Duration.Seconds(), rate))
			}
		},
		Warn: func(msg string) {
			if _, dup := warned.LoadOrStore(msg, true); !dup {
				view.clear()
				v.mu.Lock()
				fmt.Fprintln(v.s.err, termtext.Line(v.red().Redact("colabdash: warning: "+msg)))
				v.mu.Unlock()
			}
		},
	}
	var err error
	if dst.Remote() {
		err = rf.jc.UploadPath(ctx, src.Path, dst.Path, dst.Dir, opts)
	} else {
		target := dst.Path
		err = rf.jc.DownloadPath(ctx, src.Path, target, dst.Dir, opts)
	}
	view.clear()
	if deleted {
		v.note(jupyter.TrashNote(purgeCommand(v.g, rf)))
	}
	sum.Seconds = time.Since(start).Seconds()
	sum.OK = err == nil
	var ee *exitError
	if err != nil {
		ee = fileError(err, rf)
		sum.Error = v.red().Redact(ee.msg)
	}
	if v.asJSON {
		if jerr := v.writeJSON(sum); jerr != nil && ee == nil {
			return jerr
		}
	}
	if ee != nil {
		return ee
	}
	return nil
}

// colonHint explains, for cp arguments that are both local, why one
// written RUNTIME:PATH was read as a local path: what comes before its
// colon is not a runtime id ("; "RT-C:/x" is read as a local path: "RT-C"
// is not a runtime id (…)"). It is "" when no argument looks remote: a
// local path needs no rewriting.
func colonHint(args []string) string {
	for _, a := range args {
		i := strings.IndexByte(a, ':')
		if i <= 0 || strings.HasPrefix(a, "./") || strings.HasPrefix(a, "../") || strings.HasPrefix(a, "/") || strings.ContainsAny(a[:i], `/\`) {
			continue
		}
		if _, err := os.Lstat(a); err == nil {
			continue // an existing local name with a colon
		}
		rt := strings.TrimPrefix(a[:i], "runtimes/")
		why := "is not a runtime id"
		if err := api.ValidateID(rt); err != nil {
			var ae *api.Error
			if errors.As(err, &ae) {
				why += " (" + strings.TrimPrefix(ae.Message, "id ") + ")"
			}
		}
		return fmt.Sprintf("; %q is read as a local path: %q %s", termtext.Cut(a, 80), termtext.Cut(rt, 63), why)
	}
	return ""
}

// idPrefix matches what could be the start of a runtime id.
var idPrefix = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// completeRemote offers the entries of the directory being typed after
// "RUNTIME:" ("rt-abc:/content/da" → "rt-abc:/content/data/"), the lookup
// bounded to 2 seconds (field case 61); dirsOnly keeps only directories.
// (The RUNTIME before the colon is verb.completeRuntimeColon's.)
func completeRemote(cmd *cobra.Command, g *globalFlags, toComplete string, dirsOnly bool) ([]string, cobra.ShellCompDirective) {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	none := cobra.ShellCompDirectiveNoFileComp
	if g.settings == nil {
		// Completion skips PersistentPreRunE: read the config quietly, and
		// never open the log file.
		if loadConfig(cmd, g, os.Getenv) != nil {
			return nil, none
		}
		g.logs = logs{log: slog.New(slog.DiscardHandler), red: &api.Redactor{}}
	}
	i := strings.IndexByte(toComplete, ':')
	if i < 0 {
		return nil, none // no RUNTIME: yet: nothing to connect for
	}
	conn, err := connect(ctx, *g)
	if err != nil {
		return nil, none
	}
	defer conn.close()
	id, p := strings.TrimPrefix(toComplete[:i], "runtimes/"), toComplete[i+1:]
	rt, err := conn.svc.GetRuntime(ctx, api.RuntimeName(id))
	if err != nil || rt.ConnectionInfo == nil {
		return nil, none
	}
	jc, err := jupyter.New(jupyter.Options{Runtime: rt.Name, Info: *rt.ConnectionInfo, Redactor: g.logs.red, CallTimeout: 2 * time.Second}) // registers the token
	if err != nil {
		return nil, none
	}
	dir, prefix := path.Split(p)
	m, err := jc.List(ctx, dir)
	if err != nil {
		return nil, none
	}
	var out []string
	for _, e := range m.Entries {
		if !strings.HasPrefix(e.Name, prefix) || (dirsOnly && !e.IsDir()) || termtext.Line(e.Name) != e.Name {
			continue
		}
		s := toComplete[:i+1] + dir + e.Name
		if e.IsDir() {
			s += "/"
		}
		out = append(out, s)
	}
	return out, none | cobra.ShellCompDirectiveNoSpace
}
