"""Shared helpers for the bench/ scripts (python3 stdlib only).

- a private nginx via scripts/nginx-bench, always stopped on exit;
- running one generator with a hard time limit, measuring its own CPU time
  (os.wait4 gives the rusage of exactly that child) and optionally sampling it;
- an experiment run through the harness (`shootout run`) and read back from
  `shootout export` as typed runs;
- machine info and appending a dated Markdown section to docs/results/.
"""

import argparse
import atexit
import dataclasses
import datetime
import json
import os
import platform
import re
import shlex
import signal
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(REPO, "docs", "results", "load-bench.md")
SHOOTOUT = os.environ.get("SHOOTOUT", os.path.join(REPO, "target", "release", "shootout"))

_cleanups = []  # callables run at exit, newest first


def _run_cleanups():
    while _cleanups:
        try:
            _cleanups.pop()()
        except Exception as e:  # keep cleaning up the rest
            print(f"cleanup: {e}", file=sys.stderr)


atexit.register(_run_cleanups)
# SIGTERM/SIGHUP -> normal exit, so that atexit (and finally blocks) run.
for _sig in (signal.SIGTERM, signal.SIGHUP):
    signal.signal(_sig, lambda signum, frame: sys.exit(128 + signum))


def entry(main):
    """Run a bench's main(); Ctrl-C ends it quietly (cleanups still run)."""
    try:
        main()
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        sys.exit(130)


def die(msg):
    print(f"error: {msg}", file=sys.stderr)
    sys.exit(1)


def rel(path):
    """Path relative to the repo root, for printing commands."""
    return os.path.relpath(path, REPO) if path.startswith(REPO + os.sep) else path


def cmdline(cmd):
    return " ".join(shlex.quote(rel(c)) for c in cmd)


def common_args(description, duration):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--duration", type=float, default=float(os.environ.get("DURATION", duration)),
                   help=f"seconds per load run (env DURATION; default {duration})")
    p.add_argument("--port", type=int, default=int(os.environ.get("PORT", 18081)),
                   help="loopback port for the private nginx (env PORT; default 18081)")
    p.add_argument("--no-record", action="store_true",
                   help=f"do not append the results to {rel(RESULTS)}")
    return p


# ---------------------------------------------------------------- setup

def install_deps():
    r = subprocess.run([os.path.join(REPO, "scripts", "install-test-deps")])
    if r.returncode != 0:
        die("scripts/install-test-deps failed")


def ensure_shootout():
    """Build target/release/shootout (unless $SHOOTOUT is set) and check that
    it has the `load` subcommand."""
    if "SHOOTOUT" not in os.environ:
        print("building: cargo build --release -p shootout", file=sys.stderr)
        r = subprocess.run(["cargo", "build", "--release", "-q", "-p", "shootout"], cwd=REPO)
        if r.returncode != 0:
            die("cargo build --release -p shootout failed; the shootout runs need it")
    if not os.access(SHOOTOUT, os.X_OK):
        die(f"{SHOOTOUT} missing; build it with: cargo build --release -p shootout")
    r = subprocess.run([SHOOTOUT, "load", "--help"], capture_output=True, timeout=10)
    if r.returncode != 0:
        die(f"`{rel(SHOOTOUT)} load --help` failed: is `shootout load` implemented yet?")


# ---------------------------------------------------------------- nginx

class Nginx:
    """A private nginx on 127.0.0.1:port (see scripts/nginx-bench)."""

    def __init__(self, port, cpu=None, access_log=None, workers=1, tls=None, http2=False,
                 download_mb=None):
        self.port = port
        self.tls, self.http2 = tls, http2
        scheme = "https" if tls else "http"
        self.url = f"{scheme}://127.0.0.1:{port}/hello"
        args = [str(port)]
        if tls:
            args += ["--tls", tls]
        if cpu is not None:
            args += ["--cpu", str(cpu)]
        if access_log:
            args += ["--access-log", access_log]
        if workers != 1:
            args += ["--workers", str(workers)]
        if http2:
            args += ["--http2"]
        if download_mb:
            args += ["--download-mb", str(download_mb)]
        self.command = ["scripts/nginx-bench", "start"] + args
        r = subprocess.run([os.path.join(REPO, "scripts", "nginx-bench"), "start"] + args,
                           capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            die(f"nginx-bench start failed:\n{r.stderr.strip()}")
        self.pid = int(r.stdout.strip())
        _cleanups.append(self.stop)

    def workers(self):
        try:
            with open(f"/proc/{self.pid}/task/{self.pid}/children") as f:
                return [int(p) for p in f.read().split()]
        except OSError:
            return []

    def cpu_seconds(self):
        """user+sys of the master and its workers, in seconds."""
        return sum(proc_cpu(p) for p in [self.pid] + self.workers())

    def status(self):
        """nginx's stub_status, parsed: over what the server speaks (HTTP/2 in clear text
        by prior knowledge, which urllib cannot, so with curl; TLS unverified)."""
        url = self.url.replace("/hello", "/nginx_status")
        if self.http2 and not self.tls:
            r = subprocess.run(["curl", "-sS", "--http2-prior-knowledge", "--max-time", "5", url],
                               capture_output=True, text=True, timeout=10)
            if r.returncode != 0:
                raise OSError(f"curl {url}: {r.stderr.strip()}")
            text = r.stdout
        else:
            context = ssl._create_unverified_context() if self.tls else None
            with urllib.request.urlopen(url, timeout=5, context=context) as r:
                text = r.read().decode()
        nums = [int(n) for n in re.findall(r"\d+", text)]
        return {"active": nums[0], "accepts": nums[1], "handled": nums[2], "requests": nums[3]}

    def stop(self):
        if self.pid is None:
            return
        pid, self.pid = self.pid, None
        if self.stop in _cleanups:
            _cleanups.remove(self.stop)
        subprocess.run([os.path.join(REPO, "scripts", "nginx-bench"), "stop", str(pid)], timeout=30)


class Contestant:
    """`shootout start NAME` (a contestant of the catalog, set up) pinned to `cpus`, with
    `threads` threads, until stop(); its process group is its pgid."""

    def __init__(self, name, port, cpus="1", threads=1):
        self.name, self.port = name, port
        self.command = [SHOOTOUT, "start", name, "--port", str(port), "--threads", str(threads),
                        "--cpus", cpus]
        self.p = subprocess.Popen(self.command, cwd=REPO, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        _cleanups.append(self.stop)
        said = []
        while not said or (" (pid " not in said[-1] and said[-1]):
            said.append(self.p.stdout.readline())
        line = said[-1]
        if " (pid " not in line:
            die(f"{name}: shootout start said: {''.join(said)[-2000:]}")
        self.pid = int(line.split(" (pid ", 1)[1].split(",", 1)[0])
        self.pgid = os.getpgid(self.pid)
        self.wait_ready()

    def wait_ready(self):
        """Polls /hello until it answers (60 s at most: a JVM starts slowly)."""
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/hello", timeout=2).read()
                return
            except OSError:
                if time.monotonic() > deadline or self.p.poll() is not None:
                    die(f"{self.name}: not answering /hello on port {self.port}")
                time.sleep(0.2)

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
            try:
                self.p.wait(30)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        if self.stop in _cleanups:
            _cleanups.remove(self.stop)


def established(port):
    """TCP connections established to 127.0.0.1:`port` (the server's side), as `ss` reads
    them from the kernel (sock_diag: each once, where /proc/net/tcp read while sockets
    come and go may show one twice): what a server without a status page holds."""
    r = subprocess.run(["ss", "-Htn", "state", "established", f"( sport = :{port} )"],
                       capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        raise OSError(f"ss: {r.stderr.strip()}")
    return sum(1 for line in r.stdout.splitlines() if line.strip())


def proc_cpu(pid):
    """utime+stime of a live process, in seconds (0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return 0.0


def group_cpu(pgid):
    """utime+stime, in seconds, of the live processes of process group `pgid`."""
    total = 0.0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def core_jiffies():
    """{core: (busy, total)} jiffies from /proc/stat. Busy includes softirq
    time, which the kernel does not charge to any process: on loopback much of
    the TCP work of both sides runs there."""
    cores = {}
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("cpu") and line[3].isdigit():
                name, *vals = line.split()
                v = [int(x) for x in vals[:8]]  # user nice system idle iowait irq softirq steal
                cores[int(name[3:])] = (sum(v) - v[3] - v[4], sum(v))
    return cores


def idle_check(seconds=1.0):
    """Warn (and return a note) when the machine is busy before the bench:
    other work on these cores makes every number here worse."""
    before = core_jiffies()
    time.sleep(seconds)
    after = core_jiffies()
    busy = [core_busy(before, after, c)[1] for c in sorted(before)]
    if max(busy) > 0.1:
        note = ("machine not idle before the run: cores busy "
                + ", ".join(f"{b:.0%}" for b in busy) + " (other processes)")
        print("warning: " + note, file=sys.stderr)
        return [note]
    return []


def core_busy(before, after, core):
    """(busy seconds, busy fraction) of one core between two core_jiffies()."""
    busy = after[core][0] - before[core][0]
    total = after[core][1] - before[core][1]
    return busy / os.sysconf("SC_CLK_TCK"), busy / total if total else 0.0


def proc_status_kb(pid, key):
    """A kB field of /proc/PID/status (VmRSS, VmHWM), or None."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


# ---------------------------------------------------------------- one run

class Run:
    """Result of run(): rc, stdout, stderr, wall/user/sys seconds."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    @property
    def cpu(self):
        return self.user + self.sys


def run(cmd, limit, sample=None, interval=0.1):
    """Run cmd, stopped after `limit` seconds. CPU time from os.wait4 is that
    of this child alone (all its threads). `sample(pid, elapsed)` is called
    every `interval` seconds while it runs."""
    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
    killed = False
    try:
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            elapsed = time.monotonic() - t0
            if elapsed > limit and not killed:  # TERM (keeps shootout's results), then KILL
                print(f"warning: stopping `{cmdline(cmd)}` after {limit:.0f} s", file=sys.stderr)
                p.terminate()
                killed = True
            elif elapsed > limit + 5:
                p.kill()
            if sample:
                sample(p.pid, elapsed)
            time.sleep(interval)
    except BaseException:
        p.kill()
        p.wait()
        raise
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)  # so Popen does not wait again
    out.seek(0)
    err.seek(0)
    return Run(rc=p.returncode, stdout=out.read().decode(errors="replace"),
               stderr=err.read().decode(errors="replace"), wall=wall,
               user=ru.ru_utime, sys=ru.ru_stime, killed=killed)


def shootout_json(r, what):
    """The JSON object `shootout load --json` printed, or die with its stderr."""
    try:
        return json.loads(r.stdout)
    except ValueError:
        die(f"{what}: no JSON from shootout (exit {r.rc}):\n{r.stderr.strip()[-2000:]}")


# ---------------------------------------------------------------- experiments

def run_experiment(name, flags=(), limit=3600):
    """`shootout run NAME FLAGS...` with its output passed on to stderr; returns the id
    of the stored experiment. Stopped with TERM (which keeps what was measured) after
    `limit` seconds."""
    cmd = [SHOOTOUT, "run", name, *flags]
    p = subprocess.Popen(cmd, cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)

    def stop():
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    _cleanups.append(stop)
    timer = threading.Timer(limit, stop)
    timer.start()
    stored = None
    for line in p.stdout:
        sys.stderr.write(line)
        found = re.search(r"stored as experiment (\d+)", line)
        stored = int(found.group(1)) if found else stored
    rc = p.wait()
    timer.cancel()
    if rc != 0:
        die(f"`{cmdline(cmd)}` exited {rc}" + (f" (experiment {stored})" if stored else ""))
    if stored is None:
        die(f"`{cmdline(cmd)}` did not say which experiment it stored")
    return stored


@dataclasses.dataclass
class StoredRun:
    """One run of `shootout export ID`, with the fields the benches read."""
    contestant: str
    endpoint: str
    layout: str
    load: str
    connections: int
    repeat: int
    label: str
    reason: str
    server_cpu_s: float
    rps: float  # the load's responses/s, also for runs the harness does not rank
    responses: int  # ok + non-2xx, over the measured part of the load
    errors: int  # timeout + connect + read + write + parse
    cores: list  # each core's mean busy share over the run (0..1), from the harness

    @classmethod
    def from_export(cls, obj):
        result = obj.get("result") or {}
        q = result.get("requests") or {}
        return cls(contestant=obj["contestant"], endpoint=obj["endpoint"],
                   layout=obj["layout"], load=obj["load"], connections=obj["connections"],
                   repeat=obj["repeat"], label=obj["label"], reason=obj.get("reason") or "",
                   server_cpu_s=obj["server_cpu_s"] or 0.0,
                   rps=result.get("rps") or obj.get("rps") or 0.0,
                   responses=q.get("ok", 0) + q.get("status", 0),
                   errors=sum(q.get(k, 0) for k in
                              ("timeout", "connect", "read", "write", "parse")),
                   cores=mean_cores(obj.get("series") or []))

    @property
    def measured(self):
        """Ran to the end: ranked (ok) or not (generator-bound), but measured."""
        return self.label in ("ok", "generator-bound") and self.responses > 0

    @property
    def us_per_response(self):
        return self.server_cpu_s * 1e6 / self.responses


def mean_cores(series):
    """Each core's mean busy share over a run's series (its first point has none)."""
    points = [p["cores"] for p in series[1:] if p.get("cores")]
    if not points:
        return []
    return [sum(c) / len(points) for c in zip(*points)]


def export(experiment_id):
    """(the experiment's contestants in the file's order, its runs as StoredRun) from
    `shootout export ID`."""
    cmd = [SHOOTOUT, "export", str(experiment_id)]
    r = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        die(f"`{cmdline(cmd)}` exited {r.returncode}:\n{r.stderr.strip()}")
    doc = json.loads(r.stdout)
    runs = [StoredRun.from_export(x) for x in doc["runs"]]
    try:
        named = tomllib.loads(doc["experiment"]["definition"]).get("contestants", [])
    except (KeyError, TypeError, tomllib.TOMLDecodeError):
        named = []
    seen = list(dict.fromkeys(named + [x.contestant for x in runs]))
    return seen, runs


# ---------------------------------------------------------------- report

def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def table(header, rows):
    """(text, markdown) renderings of a table of strings."""
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    fmt = lambda r: "  ".join(str(c).rjust(w) if i else str(c).ljust(w)
                              for i, (c, w) in enumerate(zip(r, widths)))
    text = "\n".join([fmt(header), fmt(["-" * w for w in widths])] + [fmt(r) for r in rows])
    md = "\n".join(["| " + " | ".join(header) + " |",
                    "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
                   + ["| " + " | ".join(str(c) for c in r) + " |" for r in rows])
    return text, md


def _first_line(cmd):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
        return (r.stdout + r.stderr).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return "?"


def machine_info():
    model = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    distro = "?"
    try:
        with open("/etc/os-release") as f:
            distro = re.search(r'PRETTY_NAME="?([^"\n]*)', f.read()).group(1)
    except (OSError, AttributeError):
        pass
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                            capture_output=True, text=True).stdout.strip() or "no commit yet"
    if subprocess.run(["git", "status", "--porcelain"], cwd=REPO,
                      capture_output=True, text=True).stdout.strip():
        commit += " (uncommitted changes)"
    return [
        f"CPU: {model}, {os.cpu_count()} cores ({len(os.sched_getaffinity(0))} usable)",
        f"kernel: {platform.release()}, {distro}",
        f"shootout commit: {commit}",
    ]


def tool_versions(tools):
    cmds = {"nginx": ["nginx", "-v"], "wrk": ["wrk", "-v"], "ab": ["ab", "-V"],
            "h2load": ["h2load", "--version"], "shootout": [SHOOTOUT, "--version"],
            "openssl": ["openssl", "version"]}
    return [f"{t}: {_first_line(cmds[t])}" for t in tools]


def record(title, no_record, machine, commands, md_table, notes):
    if no_record:
        return
    os.makedirs(os.path.dirname(RESULTS), exist_ok=True)
    new = not os.path.exists(RESULTS)
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    with open(RESULTS, "a") as f:
        if new:
            f.write("# shootout load: benchmark results\n\n"
                    "Appended by the scripts in bench/ (see bench/README.md); newest last.\n")
        f.write(f"\n## {title}, {now}\n\n")
        f.write("".join(f"- {m}\n" for m in machine))
        f.write("\nCommands:\n\n```\n" + "\n".join(commands) + "\n```\n\n")
        f.write(md_table + "\n")
        if notes:
            f.write("\n" + "\n".join(notes) + "\n")
    print(f"\nappended to {rel(RESULTS)}")
