package transfer

import (
	"strconv"
	"strings"
)

// TrashNote is the fix said when an upload failed because the runtime's
// disk is full (DiskFull): a stock jupyter_server moves what DELETE
// removes to the trash of the user it runs as
// (FileContentsManager.delete_to_trash, on by default), where it keeps
// using disk space nobody sees. purge is the command that empties that
// trash, written by the caller. It is not said after every delete:
// success is quiet.
func TrashNote(purge string) string {
	return "files deleted on the runtime may still fill its disk from its Jupyter server's trash (~/.local/share/Trash); to free them, run: " + purge
}

// DiskFull reports whether err is the runtime's server saying its disk
// is full (Python's "[Errno 28] No space left on device" in Jupyter's
// message).
func DiskFull(err error) bool {
	return err != nil && strings.Contains(strings.ToLower(err.Error()), "no space left on device")
}

// PurgeCode is the Python that empties the trash of the user a runtime's
// Jupyter server runs as, run through execute_code (`rm --purge`): the
// files/, info/ and expunged/ directories of $XDG_DATA_HOME/Trash (or
// ~/.local/share/Trash) and of each mount's .Trash-UID (send2trash's
// places for files on other devices). It prints one line, the bytes it
// freed (ParsePurged reads it), and leaves no name behind in the
// kernel. Its first line is colabfake.PurgeMarker, which the emulator
// recognizes.
const PurgeCode = `# colabdash: empty the Jupyter trash
def _colabdash_purge():
    import os, shutil
    tops = [os.path.join(os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"), "Trash")]
    try:
        with open("/proc/self/mounts") as f:
            for line in f:
                mnt = line.split()[1].replace("\\040", " ")
                if not mnt.startswith(("/proc", "/sys", "/dev")):
                    tops.append(os.path.join(mnt, ".Trash-%d" % os.getuid()))
    except OSError:
        pass
    freed = 0
    for top in tops:
        for sub in ("files", "info", "expunged"):
            d = os.path.join(top, sub)
            if os.path.islink(d) or not os.path.isdir(d):
                continue
            for dirpath, _, names in os.walk(d):
                for n in names:
                    try:
                        freed += os.lstat(os.path.join(dirpath, n)).st_size
                    except OSError:
                        pass
            shutil.rmtree(d, ignore_errors=True)
    print(freed)
try:
    _colabdash_purge()
finally:
    del _colabdash_purge
`

// ParsePurged reads PurgeCode's output: the bytes freed, and false when
// stdout is not one number.
func ParsePurged(stdout string) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(stdout), 10, 64)
	return n, err == nil && n >= 0
}
