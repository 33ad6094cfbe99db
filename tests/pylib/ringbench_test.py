"""Shared by every Python test (tests/cli, tests/reports/compare, tests/reports): run the built ringbench
binary, make small real sweeps, read and write its JSON, plant slowdowns in results, and skip a test
whose machine lacks a prerequisite. ctest puts this folder on PYTHONPATH and names the binary in
RINGBENCH_BIN; to run a test by hand, from its folder:
  PYTHONPATH=../pylib RINGBENCH_BIN=../../build/ci/ringbench python3 -m unittest -v test_run_cli"""
import copy
import functools
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import signal
import time

BIN = os.environ.get("RINGBENCH_BIN", "ringbench")
# Set by ctest in the sanitizer stage: ASan's shadow memory and quarantine multiply a process's
# resident memory and its run time, so a bound on either says nothing about the code there.
SANITIZED = os.environ.get("RINGBENCH_SANITIZED") == "1"
SOURCE_DIR = os.path.abspath(os.environ.get("RINGBENCH_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")))
ARTIFACT_DIR = os.environ.get("RINGBENCH_ARTIFACT_DIR", os.path.join(tempfile.gettempdir(), "ringbench-artifacts"))
SCHEMA = os.path.join(SOURCE_DIR, "reports", "results", "results.schema.json")

# A small real CPU sweep: four configurations, 12 timed passes each, about a second in all.
SMALL_SWEEP = ["--seq", "256,512", "--cp", "1,2", "--split", "zigzag", "--variant", "ring",
               "--heads", "4", "--kv-heads", "2", "--head-dim", "32", "--dtype", "float32"]

# S 96 and 100 over c 1, 2, 3, 4 and every split. S = 100 breaks some splits' divisibility rules,
# so --skip-invalid records those as skipped with their reason: every report section has something.
REPORT_SWEEP = ["--seq", "96,100", "--cp", "1,2,3,4", "--split", "contiguous,zigzag,striped",
                "--variant", "ring,allgather", "--heads", "4", "--kv-heads", "2", "--head-dim", "16",
                "--dtype", "float64"]

# A sweep of 24 small configurations, each long enough for a signal to land mid-sweep.
LONG_SWEEP = ["run", "--seq", "512", "--cp", "1,2,4,8", "--split", "contiguous,zigzag,striped", "--variant",
              "ring,allgather", "--heads", "4", "--kv-heads", "2", "--head-dim", "32", "--repeats", "20"]


def run(*args, timeout=600, cwd=None, env=None):
    """Runs ringbench with args; returns the CompletedProcess (text mode)."""
    return subprocess.run([BIN, *map(str, args)], capture_output=True, text=True, timeout=timeout, cwd=cwd, env=env)


def sweep(out_dir, repeats=12, extra=(), shape=None, warmup=2):
    """Runs SMALL_SWEEP (or `shape`) into out_dir and returns the path of its results.json; raises
    if the run failed. warmup None leaves the binary's default."""
    warm = () if warmup is None else ("--warmup", warmup)
    p = run("run", *(shape or SMALL_SWEEP), "--repeats", repeats, *warm, "--out", out_dir, *extra)
    if p.returncode != 0:
        raise AssertionError(f"ringbench run failed ({p.returncode}): {p.stderr[-2000:]}")
    return os.path.join(out_dir, "results.json")


def report_sweep(out_dir):
    """REPORT_SWEEP, 2 timed passes each, into out_dir, with some configurations skipped; returns the
    path of results.json."""
    return sweep(out_dir, repeats=2, extra=("--skip-invalid",), shape=REPORT_SWEEP, warmup=None)


def start_and_wait_for_lines(out, lines, stdout=subprocess.DEVNULL, timeout=300, env=None):
    """Starts LONG_SWEEP writing to `out` and returns the Popen once results.jsonl has `lines` lines
    (or the sweep ended, or the timeout passed)."""
    proc = subprocess.Popen([BIN, *LONG_SWEEP, "--out", out], stdout=stdout, stderr=subprocess.PIPE, text=True,
                            env=env)
    jsonl = os.path.join(out, "results.jsonl")
    deadline = time.time() + timeout
    while time.time() < deadline and proc.poll() is None:
        if os.path.exists(jsonl):
            with open(jsonl) as f:
                if sum(1 for _ in f) >= lines:
                    break
        time.sleep(0.05)
    return proc


# A row of `run`'s console table (bench/sweep/progress.hpp, docs/console.md): the counter
# [k/N], the ETA, the configuration's label (single spaces inside, two or more after), the status,
# then its figures or its reason.
CONSOLE_ROW = re.compile(r"^\[\s*(\d+)/(\d+)\]\s+(\S+)\s+(S=\S+(?: \S+)*?)\s{2,}(ok|FAILED|skipped|round \d+(?:/\d+)?)"
                         r"(?:\s+(.*))?$")


def console_lines(stderr):
    """stderr as the lines a log shows: split at line ends and at the live row's return-and-erase (text
    mode reads that return as a line end)."""
    return [l for l in (part.removeprefix("\x1b[K") for part in re.split(r"\r\n|\r|\n", stderr)) if l]


def console_rows(stderr):
    """The table rows in stderr, as dicts: k, n, eta, label, status, rest (figures or reason)."""
    rows = []
    for line in console_lines(stderr):
        m = CONSOLE_ROW.match(line)
        if m:
            rows.append({"k": int(m[1]), "n": int(m[2]), "eta": m[3], "label": m[4], "status": m[5],
                         "rest": m[6] or "", "line": line})
    return rows


def read_json(path):
    with open(path) as f:
        return json.load(f)


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def write_json(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def scale_timing(doc, factor):
    """A copy of a results document whose every timed sample (and summary) is multiplied by factor,
    as a planted slowdown (factor > 1) or speed-up; attention TFLOP/s scales by 1/factor."""
    doc = copy.deepcopy(doc)
    for r in doc["runs"]:
        t = r.get("timing")
        if not t:
            continue
        t["samples_ms"] = [x * factor for x in t["samples_ms"]]
        for k in ("min_ms", "median_ms", "mean_ms", "p90_ms", "p99_ms", "max_ms", "stdev_ms"):
            if k in t:
                t[k] *= factor
        if r.get("metrics") and r["metrics"].get("attention_tflops"):
            r["metrics"]["attention_tflops"] /= factor
    return doc


def tempdir():
    return tempfile.TemporaryDirectory(prefix="ringbench-test-")


def shell_script(folder, name, body):
    """An executable `folder/name` running `body` under /bin/sh: a stand-in for a build or a tool."""
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body)
    os.chmod(path, 0o755)
    return path


@functools.lru_cache(maxsize=None)
def pytools_dir():
    """The folder that holds the field's own tools the tests use as peers (Meta's HTA, asv):
    RINGBENCH_PYTOOLS where set, else where `scripts/pypi-deps.sh tools` installs them."""
    if os.environ.get("RINGBENCH_PYTOOLS"):
        return os.environ["RINGBENCH_PYTOOLS"]
    p = subprocess.run(["bash", os.path.join(SOURCE_DIR, "scripts", "pypi-deps.sh"), "--where", "tools"],
                       capture_output=True, text=True)
    return p.stdout.strip() if p.returncode == 0 else ""


def pytools_env(extra=None):
    """The environment of a process that imports from the tools' folder, which comes first on its
    PYTHONPATH. The folder carries its own numpy and pandas (pip's resolution for HTA), which Debian's
    scipy cannot load beside, so the tools always run in a process of their own, never in a test's."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (pytools_dir(), os.environ.get("PYTHONPATH")) if p),
               PYTHONNOUSERSITE="1", PYTHONDONTWRITEBYTECODE="1")
    env.update(extra or {})
    return env


def pytools_run(script, *args, timeout=600, env=None, input=None):
    """Runs a Python script file with the tools' folder on its path; returns the CompletedProcess."""
    return subprocess.run([sys.executable, script, *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=pytools_env(env), input=input)


def pytool(dist, module):
    """(version, None) when `module` imports from the tools' folder, `version` being that of the
    distribution `dist`; else (None, why not), the reason a test that needs it skips with."""
    where = pytools_dir()
    fetch = "install with `bash scripts/pypi-deps.sh tools` (needs PyPI)"
    if not where or not os.path.isdir(where):
        return None, f"{dist} is not installed: no folder {where or '(pypi-deps.sh --where tools failed)'}; {fetch}"
    code = f"import importlib.metadata as m, {module}; print(m.version({dist!r}))"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=pytools_env())
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or ["no output"])[-1]
        return None, f"{dist} does not import from {where}: {last}; {fetch}"
    return p.stdout.strip(), None


def skip_process(reason):
    """Exit code 77 is the ctest SKIP_RETURN_CODE of these tests: the machine lacks a prerequisite."""
    print(f"SKIPPED: {reason}", file=sys.stderr)
    sys.exit(77)


# The smallest real sweep: two configurations, one sample each, a second or two of work.
TINY = ["--seq", "64", "--cp", "1,2", "--heads", "2", "--kv-heads", "1", "--head-dim", "8", "--repeats", "1"]


def folder_state(root):
    """Every path under root, relative to it: a link's target, a file's digest and mode, or 'dir';
    two states compare equal when nothing under root was created, removed, replaced or rewritten."""
    state = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            p = os.path.join(folder, name)
            rel = os.path.relpath(p, root)
            if os.path.islink(p):
                state[rel] = ("link", os.readlink(p))
            elif os.path.isdir(p):
                state[rel] = ("dir",)
            else:
                with open(p, "rb") as f:
                    state[rel] = ("file", hashlib.sha256(f.read()).hexdigest(), os.stat(p).st_mode)
    return state


# Runs argv[2:] in a child and writes "exit-code peak-RSS-KiB" to argv[1]. A child's ru_maxrss starts
# from the high-water mark of the process that forked it (exec keeps the larger), so the test process
# itself, which may have built hundreds of MB of input, must not be that parent: this small
# interpreter is. It passes SIGTERM on to the child.
_MEASURE = """
import os, signal, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
signal.signal(signal.SIGTERM, lambda *_: os.kill(pid, signal.SIGTERM))
while True:
    try:
        _, status, usage = os.wait4(pid, 0)
        break
    except InterruptedError:
        continue
with open(sys.argv[1], "w") as f:
    f.write(f"{os.waitstatus_to_exitcode(status)} {usage.ru_maxrss}")
"""


def run_measured(args, signal_after=None, timeout=300):
    """Runs ringbench; returns (returncode, stdout, stderr, peak RSS in MiB, wall seconds). The peak is
    this child's alone, measured by a small launcher (see _MEASURE), not the largest of every child
    the test has run nor the test's own; 0 under a sanitizer (SANITIZED), where it means nothing, so
    a bound on it holds there trivially. signal_after: SIGTERM it after that many seconds."""
    start = time.monotonic()
    with tempdir() as logs:
        out_path, err_path, usage_path = (os.path.join(logs, n) for n in ("out", "err", "usage"))
        with open(out_path, "w") as out, open(err_path, "w") as err:
            proc = subprocess.Popen([sys.executable, "-c", _MEASURE, usage_path, BIN, *map(str, args)], stdout=out,
                                    stderr=err)
            if signal_after is not None:
                time.sleep(signal_after)
                proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=max(1, start + timeout - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGTERM)  # passed on to ringbench, so no orphan outlives the test
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        wall = time.monotonic() - start
        with open(out_path, errors="replace") as f:
            stdout = f.read()
        with open(err_path, errors="replace") as f:
            stderr = f.read()
        code, rss = -9, 0
        if os.path.exists(usage_path):
            with open(usage_path) as f:
                code, rss = (int(x) for x in f.read().split())
    return code, stdout, stderr, 0.0 if SANITIZED else rss / 1024.0, wall


class TinySweepCase:
    """A mixin for unittest.TestCase: one TINY sweep in a temporary folder shared by the class,
    cls.d the folder and cls.results its results.json. RUN_EXTRA adds flags to that sweep."""
    RUN_EXTRA = ()

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempdir()
        cls.d = cls.tmp.name
        p = run("run", *TINY, *cls.RUN_EXTRA, "--out", os.path.join(cls.d, "base"), cwd=cls.d)
        assert p.returncode == 0, p.stderr
        cls.results = os.path.join(cls.d, "base", "results.json")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()
