# colabdash job supervisor: runs one job, `python FILE ARGS`, in a session
# and process group of its own, and records it in the job's directory.
#
#   python supervise.py JOBDIR ROOT
#
# JOBDIR holds spec.json (what to run); ROOT is the Jupyter root that the
# spec's contents paths (cwd, file) are relative to. The supervisor writes
# log (stdout and stderr, merged, as they arrive), stderr.ranges ("OFFSET
# LENGTH" per stderr piece of log) and status.json (replaced atomically: at
# the start, every HEARTBEAT seconds and at the end). A file named stop in
# JOBDIR asks for the job's end: SIGTERM to its process group, SIGKILL once
# the grace the file names (seconds) has passed. Standard library only,
# Python 3.8 or later.
import datetime
import json
import os
import selectors
import signal
import subprocess
import sys
import time

HEARTBEAT = 5.0  # seconds between status.json rewrites while the job runs
POLL = 1.0  # seconds between looks at the stop file
DRAIN = 1.0  # seconds the pipes are read after the job's process ended
MAX_SPEC = 64 << 10  # bytes of spec.json read at most
DEFAULT_GRACE = 10.0  # seconds from SIGTERM to SIGKILL when stop names none
MAX_GRACE = 3600.0


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Supervisor:
    def __init__(self, jobdir, root):
        self.jobdir = jobdir
        self.root = root
        self.status = {"pid": 0, "started": now(), "exit_code": None, "heartbeat": now()}
        self.proc = None
        self.log = None
        self.ranges = None
        self.offset = 0
        self.stop_deadline = None  # monotonic time of the SIGKILL, once stopping
        self.killed = False

    def path(self, name):
        return os.path.join(self.jobdir, name)

    def write_status(self):
        self.status["heartbeat"] = now()
        tmp = self.path(".status.json.tmp")  # hidden: never listed nor served
        try:
            with open(tmp, "w") as f:
                json.dump(self.status, f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path("status.json"))
        except OSError:
            pass  # a full disk: the next write may succeed; none is a lost job

    def fail(self, message):
        self.status["error"] = message[:1000]
        self.status["ended"] = now()
        self.write_status()
        return 1

    def read_spec(self):
        with open(self.path("spec.json"), "rb") as f:
            raw = f.read(MAX_SPEC + 1)
        if len(raw) > MAX_SPEC:
            raise ValueError("spec.json is larger than %d bytes" % MAX_SPEC)
        spec = json.loads(raw.decode("utf-8"))
        for key in ("cwd", "file", "argv0"):
            if not isinstance(spec.get(key), str) or not spec[key]:
                raise ValueError("spec.json has no %s" % key)
        args = spec.get("args") or []
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise ValueError("spec.json's args are not strings")
        return spec, args

    def inside_root(self, rel):
        full = os.path.normpath(os.path.join(self.root, rel))
        if os.path.isabs(rel) or os.path.commonpath([full, self.root]) != self.root:
            raise ValueError("%r is outside the Jupyter root" % rel)
        return full

    def command(self, spec, args):
        cwd = self.inside_root(spec["cwd"])
        script = self.inside_root(spec["file"])
        # argv[0] is the file as the user named it when that names the
        # same file from cwd, else its path relative to cwd: either way
        # __file__ and sys.argv are those of `python FILE` run there.
        argv0 = spec["argv0"]
        if os.path.isabs(argv0) or os.path.normpath(os.path.join(cwd, argv0)) != script:
            argv0 = os.path.relpath(script, cwd)
        if argv0.startswith("-"):
            # Python would read "-c…" or "-m…" as an option, not a file.
            argv0 = os.path.join(".", argv0)
        return [sys.executable, argv0] + args, cwd

    def environment(self):
        env = dict(os.environ)
        env["PYTHONUNBUFFERED"] = "1"
        # What the kernel set for itself is not the script's: a plain
        # `python FILE` has no kernel parent, and matplotlib's inline
        # backend only works inside a kernel.
        for name in ("JPY_PARENT_PID", "JPY_SESSION_NAME"):
            env.pop(name, None)
        if env.get("MPLBACKEND", "").startswith("module://matplotlib_inline"):
            del env["MPLBACKEND"]
        return env

    def start(self):
        try:
            spec, args = self.read_spec()
            argv, cwd = self.command(spec, args)
            self.log = open(self.path("log"), "ab", buffering=0)
            self.ranges = open(self.path("stderr.ranges"), "ab", buffering=0)
            self.offset = os.fstat(self.log.fileno()).st_size
            self.proc = subprocess.Popen(
                argv, cwd=cwd, env=self.environment(), stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, close_fds=True,
                start_new_session=True)
        except Exception as e:  # every failure is recorded, none raised
            return "cannot start the job: %s: %s" % (type(e).__name__, e)
        self.status["pid"] = self.proc.pid
        self.status["started"] = now()
        self.write_status()
        return None

    def append(self, chunk, is_stderr):
        try:
            write_all(self.log, chunk)
            if is_stderr:
                write_all(self.ranges, b"%d %d\n" % (self.offset, len(chunk)))
        except OSError:
            pass  # a full disk loses output, not the job
        # The log's own size, not a count: after a failed write the
        # ranges still name the bytes where they are.
        self.offset = os.fstat(self.log.fileno()).st_size

    def signal_group(self, sig):
        try:
            os.killpg(self.proc.pid, sig)
        except OSError:
            pass

    def forward(self, signum, frame):
        if self.proc is not None:
            self.signal_group(signum)

    def check_stop(self):
        if self.stop_deadline is None:
            try:
                with open(self.path("stop"), "rb") as f:
                    text = f.read(64)
            except OSError:
                return
            try:
                grace = min(max(float(text.decode("ascii").strip()), 0.0), MAX_GRACE)
            except ValueError:
                grace = DEFAULT_GRACE
            self.stop_deadline = time.monotonic() + grace
            self.status["stopping"] = True
            self.write_status()
            self.signal_group(signal.SIGTERM)
        elif not self.killed and time.monotonic() >= self.stop_deadline:
            self.killed = True
            self.signal_group(signal.SIGKILL)

    def group_alive(self):
        try:
            os.killpg(self.proc.pid, 0)
            return True
        except OSError:
            return False

    def reap_orphans(self):
        # As the subreaper, orphans of the job's tree are ours to wait for;
        # the job's own process is left to Popen.
        while True:
            try:
                info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except (ChildProcessError, OSError, AttributeError):
                return
            if info is None or info.si_pid == self.proc.pid:
                return
            try:
                os.waitpid(info.si_pid, os.WNOHANG)
            except ChildProcessError:
                return

    def run(self):
        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ, False)
        sel.register(self.proc.stderr, selectors.EVENT_READ, True)
        open_pipes = 2
        beat = time.monotonic() + HEARTBEAT
        poll = time.monotonic() + POLL
        drain_until = None
        while True:
            now_m = time.monotonic()
            if drain_until is None and self.proc.poll() is not None:
                drain_until = now_m + DRAIN
            if drain_until is not None:
                stopping_done = self.stop_deadline is None or self.killed or not self.group_alive()
                if (open_pipes == 0 or now_m >= drain_until) and stopping_done:
                    break
            timeout = min(beat, poll) - now_m
            if drain_until is not None:
                timeout = min(timeout, drain_until - now_m, 0.1)
            timeout = max(timeout, 0.0)
            if open_pipes:
                for key, _ in sel.select(timeout):
                    chunk = os.read(key.fileobj.fileno(), 65536)
                    if chunk:
                        self.append(chunk, key.data)
                    else:
                        sel.unregister(key.fileobj)
                        open_pipes -= 1
            elif drain_until is None:
                # Both pipes closed while the process runs: wait for it
                # without spinning.
                try:
                    self.proc.wait(timeout=max(timeout, 0.01))
                except subprocess.TimeoutExpired:
                    pass
            else:
                time.sleep(max(timeout, 0.01))
            self.reap_orphans()
            now_m = time.monotonic()
            if now_m >= poll:
                poll = now_m + POLL
                self.check_stop()
            if now_m >= beat:
                beat = now_m + HEARTBEAT
                self.write_status()
        self.finish()

    def finish(self):
        code = self.proc.wait()
        if code < 0:
            self.status["exit_code"] = -1
            self.status["signal"] = -code
        else:
            self.status["exit_code"] = code
        self.status["ended"] = now()
        self.write_status()


def write_all(f, data):
    # An unbuffered file may take less than all of data in one write.
    view = memoryview(data)
    while view:
        view = view[f.write(view):]


def set_subreaper():
    # Linux only, best effort: orphans of the job's tree become the
    # supervisor's children, so that it can tell when the whole process
    # group is gone after a stop.
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except Exception:
        pass


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: supervise.py JOBDIR ROOT\n")
        return 2
    jobdir, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    sup = Supervisor(jobdir, root)
    signal.signal(signal.SIGTERM, sup.forward)
    signal.signal(signal.SIGINT, sup.forward)
    set_subreaper()
    err = sup.start()
    if err is not None:
        return sup.fail(err)
    try:
        sup.run()
    except Exception as e:  # recorded: a supervisor that dies silently is only "lost"
        return sup.fail("the supervisor failed: %s: %s" % (type(e).__name__, e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
