package files

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	xterm "github.com/charmbracelet/x/term"

	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/termtext"
	"github.com/spf13/cobra"
)

func cpCmd(g *kit.Globals, s *kit.Streams) *cobra.Command {
	v := newVerb(g, s, "cp")
	var recursive, followLinks, force bool
	var jobs int
	cmd := &cobra.Command{
		Use:   "cp SRC DST",
		Short: "Copy files to or from a runtime (RUNTIME:PATH on one side)",
		Long: "cp copies a file (or a directory with -r) between this machine and a runtime, through the\n" +
			"runtime's Jupyter server. One side is RUNTIME:PATH, as in kubectl cp: RUNTIME is the id (rt-abc),\n" +
			"runtimes/rt-abc or a unique prefix. PATH is absolute on the runtime when it starts with /, else\n" +
			"relative to /content (rt-abc:data.csv is /content/data.csv; rt-abc: alone is /content). An argument\n" +
			"that exists locally, or starts with ./ ../ / or a drive letter, is local.\n\n" +
			"Destination rule (the same both ways, as cp and scp): a file or directory (-r) copied into an\n" +
			"existing directory lands below it under its own name (cp -r RT:proj ./results/ makes\n" +
			"results/proj); a DST that does not exist becomes the copy (its parent must exist). A local file\n" +
			"is never replaced unless -f: a download that would replace one refuses before writing anything,\n" +
			"naming it. Remote files are replaced as cp replaces them. Below a local destination nothing is written through a symbolic\n" +
			"link: such an entry is refused in one line naming it, the rest is copied, and cp exits 1.\n\n" +
			"An upload that fits one request (under 50 MB) is PUT onto NAME; a larger one goes in chunks to\n" +
			"NAME.colabdash-part, is checked by size and renamed into place (a proxy's 413 makes the pieces\n" +
			"smaller, down to 1 MiB). Downloads stream to NAME.colabdash-part beside the target, resume with Range after a\n" +
			"dropped connection and are renamed into place only when complete. A proxy token that expires\n" +
			"during a transfer is renewed (get_runtime) without restarting it. Hidden files (names starting\n" +
			"with \".\") are not served by Jupyter: cp -r skips them on upload and says how many. A symbolic\n" +
			"link inside a directory uploaded with -r is followed to a file inside that directory only; one\n" +
			"that leads out of it (to ~/.ssh in a cloned repository, say) is skipped and named, unless -L.\n" +
			"Jupyter lists a link to a directory as a directory, so before a directory is downloaded with -r\n" +
			"colabdash runs a short Python check on the runtime (execute_code, in a session it opens and\n" +
			"closes) that lists the links below it: each is skipped, not even a link to a file is fetched, and one\n" +
			"warning says how many. A directory that is itself a link, or one the check cannot run for, is refused\n" +
			"unless -L, which follows every link.\n\n" +
			"cp -r first walks the tree (the local one, or the runtime's listings), then moves --jobs files at\n" +
			"once (default 8: each small file costs about one round trip to the runtime, and 8 in flight hide\n" +
			"it without asking more of the runtime's Jupyter server than a browser does); each remote directory\n" +
			"costs one request (created, or listed once for what is already there) and a small file one PUT.\n" +
			"Files are reported in path order. A file that fails does not stop the others: it is named, the\n" +
			"rest is copied, and cp exits with that failure's code; a failure that would fail them all (the\n" +
			"runtime gone, the network down) starts no other file.\n\n" +
			"stdout belongs to the data: DST - writes the file to stdout (a local file named - is ./-), as does\n" +
			"/dev/stdout. When stderr is a terminal, a progress bar (files and bytes, rate, ETA) is drawn there and\n" +
			"each file copied is one line there; otherwise a successful cp prints nothing. --json prints only a\n" +
			"final summary on stdout.\n" + kit.JSONHelp + "\n" + kit.ExitCodesHelp,
		Example: "  colabdash cp ./data.csv rt-abc:\n" +
			"  colabdash cp rt-abc:model.pt .\n" +
			"  colabdash cp rt-abc:/content/train.log - | tail\n" +
			"  colabdash cp -f rt-abc:/content/model.pt ./model.pt\n" +
			"  colabdash cp -r ./proj rt-abc:\n" +
			"  colabdash cp -r rt-abc:/content/outputs ./outputs --json",
		Args: cobra.ExactArgs(2),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) >= 2 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			if strings.Contains(toComplete, ":") {
				return v.completeRuntimeColon(cmd, toComplete, false)
			}
			if toComplete != "" && idPrefix().MatchString(toComplete) {
				// Could be a runtime id: offer "rt-abc:" when one matches,
				// else local files.
				if ids, dir := v.completeRuntimeColon(cmd, toComplete, false); len(ids) > 0 {
					return ids, dir
				}
			}
			return nil, cobra.ShellCompDirectiveDefault // local files
		},
		RunE: v.jsonOnFailure(func(cmd *cobra.Command, args []string) error {
			if jobs < 1 || jobs > jupyter.MaxJobs {
				return &kit.ExitError{Code: kit.ExitUsage, Msg: fmt.Sprintf("--jobs %d: give 1 to %d", jobs, jupyter.MaxJobs)}
			}
			if err := dashArgs(args, recursive); err != nil {
				return err
			}
			src, err := jupyter.ParseLocation(args[0], false)
			if err != nil {
				return &kit.ExitError{Code: kit.ExitUsage, Msg: err.Error()}
			}
			dst, err := jupyter.ParseLocation(args[1], false)
			if err != nil {
				return &kit.ExitError{Code: kit.ExitUsage, Msg: err.Error()}
			}
			if args[1] == "-" {
				dst = jupyter.Location{Path: "-"}
			}
			switch {
			case src.Remote() && dst.Remote():
				return &kit.ExitError{Code: kit.ExitUsage, Msg: "both sides are on a runtime; copy through this machine (cp to a local path, then back)"}
			case !src.Remote() && !dst.Remote():
				return &kit.ExitError{Code: kit.ExitUsage, Msg: "neither side is RUNTIME:PATH (e.g. rt-abc:/content/)" + colonHint(args) + missingColon(args)}
			}
			srcDir := false // a local directory, copied with -r
			if !src.Remote() {
				st, err := os.Stat(src.Path)
				if errors.Is(err, fs.ErrNotExist) {
					// Before connecting: a missing local file is the user's to fix.
					return FileError(&jupyter.Error{Op: "upload", Kind: jupyter.ErrLocalNotFound, Message: src.Path}, nil)
				} else if err != nil { // permission denied, I/O: say so, not "no such file"
					return FileError(&jupyter.Error{Op: "upload", Kind: jupyter.ErrLocal, Message: err.Error()}, nil)
				}
				if st.IsDir() && !recursive {
					return &kit.ExitError{Code: kit.ExitUsage, Msg: fmt.Sprintf("upload: %s is a directory (use -r)", termtext.Cut(src.Path, 200))}
				}
				srcDir = st.IsDir()
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
			defer rf.conn.Close()
			opts := jupyter.CopyOptions{Recursive: recursive, Jobs: jobs, FollowLinks: followLinks, Overwrite: force}
			return v.runCopy(ctx, rf, src, dst, opts, func(err error) *kit.ExitError {
				// Where a directory lands is known once the runtime said
				// whether DST exists: a top-level one is refused there.
				var je *jupyter.Error
				if srcDir && errors.As(err, &je) && errors.Is(err, jupyter.ErrTopLevel) {
					return v.topLevelDir(rf, args[0], src.Path, je.Path)
				}
				return nil
			})
		}, func(env kit.Envelope) any { return CopySummary{Envelope: env, Files: []CopiedFile{}} }),
	}
	cmd.Flags().BoolVarP(&recursive, "recursive", "r", false, "copy directories")
	cmd.Flags().BoolVarP(&force, "force", "f", false, "replace local files that exist (a download refuses otherwise, before writing anything)")
	cmd.Flags().BoolVarP(&followLinks, "dereference", "L", false, "follow symbolic links: cp -r up, also those that lead out of the source directory; cp -r down, every link on the runtime (by default skipped)")
	kit.IntVar(cmd.Flags(), &jobs, "jobs", jupyter.DefaultJobs, fmt.Sprintf("a whole number from 1 to %d", jupyter.MaxJobs), fmt.Sprintf("files moved at once by cp -r (1 to %d)", jupyter.MaxJobs))
	v.JSONFlags(cmd, "print only a JSON summary on stdout: {ok, error, files:[{src, dst, bytes, seconds}], bytes, seconds}")
	return cmd
}

// topLevelDir words the refusal of cp -r DIR where it would create or
// merge into a top-level directory (RUNTIME:/ gives /DIR,
// RUNTIME:/proj a missing /proj): nothing is created or merged there
// (jupyter.Creatable: colabdash could not remove it). This line names
// the command that copies DIR into /content under its own name, typed as
// the user typed it (typed).
func (v *verb) topLevelDir(rf *runtimeFiles, typed, dir, dst string) *kit.ExitError {
	msg := "upload " + jupyter.Where(rf.id(), dst) + ": refusing to copy a directory as the runtime's root or a top-level directory " +
		"(colabdash could not remove it)"
	name := filepath.Base(dir)
	if abs, err := filepath.Abs(dir); err == nil {
		name = filepath.Base(abs)
	}
	if id := rf.rt.ID(); kit.PasteID(id) && name != string(filepath.Separator) && !strings.HasPrefix(name, ".") {
		if line, ok := v.G.CommandLine("cp", "-r", typed, id+":/content/"); ok {
			return &kit.ExitError{Code: kit.ExitUsage, Msg: msg + "; to copy it into /content, run: " + line}
		}
	}
	return &kit.ExitError{Code: kit.ExitUsage, Msg: msg + "; copy it into /content (RUNTIME:/content/)"}
}

// CopySummary is `cp --json`'s output: always one object, ok false with
// error set on failure (the exit code is non-zero then too).
type CopySummary struct {
	kit.Envelope
	Files   []CopiedFile `json:"files"`
	Bytes   int64        `json:"bytes"`
	Seconds float64      `json:"seconds"`
}

// CopiedFile is one file cp copied: cp --json's files[] (kit's, which
// run's downloads share).
type CopiedFile = kit.CopiedFile

// runCopy runs the copy; refine, when it returns non-nil for the copy's
// error, words that error instead of FileError.
func (v *verb) runCopy(ctx context.Context, rf *runtimeFiles, src, dst jupyter.Location, opts jupyter.CopyOptions, refine func(error) *kit.ExitError) error {
	tty := v.S.ErrTTY
	width := 80
	if f, ok := kit.File(v.S.Err); ok && tty {
		if w, _, err := xterm.GetSize(f.Fd()); err == nil {
			width = w
		}
	}
	view := newTransferView(v.S.Err, tty, !v.ColorOn(tty), width)
	toStdout := !dst.Remote() && dst.Path == "-"
	sum := CopySummary{Files: []CopiedFile{}}
	start := time.Now()
	var warned sync.Map
	opts.Progress, opts.Planned = view.update, view.plan
	opts.OnFile = func(r jupyter.FileResult) {
		view.fileDone(r.Src, r.Bytes)
		view.clear()
		if dst.Remote() {
			r.Dst = AbsRemoteArg(r.Dst)
		} else {
			r.Src = AbsRemoteArg(r.Src)
		}
		if toStdout {
			r.Dst = "-"
		}
		sum.Files = append(sum.Files, CopiedFile{Src: r.Src, Dst: r.Dst, Bytes: r.Bytes, Seconds: r.Duration.Seconds()})
		sum.Bytes += r.Bytes
		if !v.AsJSON && tty {
			// Like the progress bar, a terminal's only: stdout belongs to
			// the data (cp RT:x /dev/stdout >> log), and success is quiet.
			v.Mu.Lock()
			fmt.Fprintln(v.S.Err, termtext.Line(v.Red().Redact(copiedLine(r))))
			v.Mu.Unlock()
		}
	}
	opts.Warn = func(msg string) {
		if _, dup := warned.LoadOrStore(msg, true); !dup {
			view.clear()
			v.Mu.Lock()
			fmt.Fprintln(v.S.Err, termtext.Line(v.Red().Redact("colabdash: warning: "+msg)))
			v.Mu.Unlock()
		}
	}
	var err error
	if dst.Remote() {
		err = rf.jc.UploadPath(ctx, src.Path, dst.Path, dst.Dir, opts)
	} else if toStdout {
		err = v.downloadToStdout(ctx, rf, src.Path, opts)
	} else {
		target := dst.Path
		opts.Links = v.linkCheck(rf)
		err = rf.jc.DownloadPath(ctx, src.Path, target, dst.Dir, opts)
	}
	view.clear()
	sum.Seconds = time.Since(start).Seconds()
	sum.OK = err == nil
	var ee *kit.ExitError
	if err != nil {
		if ee = refine(err); ee == nil {
			ee = FileError(err, rf)
		}
		if errors.Is(err, jupyter.ErrLocalExists) {
			ee.Msg += " (-f/--force replaces)"
		}
		if dst.Remote() && ee.Fix == "" {
			switch {
			case errors.Is(err, jupyter.ErrNoParent):
				ee.Fix = noParentFix
			case jupyter.DiskFull(err):
				ee.Fix = "fix: " + jupyter.TrashNote(purgeCommand(v.G, rf))
			}
		}
		sum.Envelope = kit.Failure(ee, v.Red())
	}
	if v.AsJSON {
		if jerr := v.WriteJSON(sum); jerr != nil && ee == nil {
			return jerr
		}
	}
	if ee != nil {
		return ee
	}
	return nil
}
