"""`ringbench ab BASE_BIN ...`: two builds' sweeps taking turns (ABBA), one timed pass, one configuration's
round or one pass of rounds at a time, each writing its own results with the pairing (format 2.3.0;
the turn's unit 2.7.0, unit sample 2.8.0). BASE_BIN is this same binary (an A/A pair)
on a tiny sweep; the refusals use small shell scripts as older or foreign builds. Nothing here
asserts a measured time: alternation is seen from the outside, by watching both results.jsonl files
grow, by listening to the base build's pacing socket, and from the order each file records."""
import os
import re
import signal
import subprocess
import time
import unittest

import jsonschema

from ringbench_test import BIN, SCHEMA, folder_state, read_json, read_jsonl, run, shell_script as script, tempdir

# 3 S x 2 c = 6 configurations, one timed pass a round.
SHAPE = ["--seq", "64,128,256", "--cp", "1,2", "--split", "zigzag", "--heads", "2", "--kv-heads", "1",
         "--head-dim", "8", "--warmup", "1"]
CONFIGS = 6
SMALL = ["--seq", "64"] + SHAPE[2:]  # 2 configurations


def git_line():
    p = run("--version")
    return next((l[len("git: "):] for l in p.stdout.splitlines() if l.startswith("git: ")), None)


def lines_in(path):
    try:
        with open(path) as f:
            return sum(1 for line in f if line.strip())
    except FileNotFoundError:
        return 0


def start_ab(out, *extra, rounds=3, base=BIN):
    return subprocess.Popen([BIN, "ab", base, *SHAPE, "--repeats", str(rounds), "--rounds", str(rounds), *extra,
                             "--out", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def watch(proc, out, timeout=300):
    """Polls both results.jsonl while proc runs; returns (stdout, stderr, the (base, new) line counts
    seen, in order, each state once)."""
    seen = []
    deadline = time.time() + timeout
    while proc.poll() is None and time.time() < deadline:
        state = (lines_in(os.path.join(out, "base", "results.jsonl")),
                 lines_in(os.path.join(out, "new", "results.jsonl")))
        if not seen or seen[-1] != state:
            seen.append(state)
        time.sleep(0.005)
    stdout, stderr = proc.communicate(timeout=60)
    return stdout, stderr, seen


def pid_of(out, role):
    """The pid of the `run` child of the pair writing into out/role, or None."""
    want = os.path.join(out, role)
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().decode(errors="replace").split("\0")
        except OSError:
            continue
        if "run" in argv and "--pace-fd" in argv and want in argv:
            return int(pid)
    return None


def alternating(state, rounds):
    """Whether (base lines, new lines) is a state that strict ABBA alternation can pass through: in
    round r the build that goes first moves from (r-1)·CONFIGS to r·CONFIGS lines while the other
    stands at (r-1)·CONFIGS, then the other moves while the first stands at r·CONFIGS."""
    b, n = state
    for r in range(1, rounds + 1):
        first, second = (b, n) if r % 2 == 1 else (n, b)
        lo, hi = (r - 1) * CONFIGS, r * CONFIGS
        if (lo <= first <= hi and second == lo) or (first == hi and lo <= second <= hi):
            return True
    return False


# A base build that is this binary behind a tap on its pacing socket: every line the sweep and the
# driver trade is relayed and logged ("sweep: ready 1 1 0", "driver: go base").
TAP = r"""#!/usr/bin/env python3
import os, socket, subprocess, sys, threading
BIN, LOG = {bin!r}, {log!r}
if sys.argv[1:2] != ["run"]:
    os.execv(BIN, [BIN] + sys.argv[1:])
driver = socket.socket(fileno=os.dup(3))
mine, theirs = socket.socketpair()
os.dup2(theirs.fileno(), 3)
os.set_inheritable(3, True)
child = subprocess.Popen([BIN] + sys.argv[1:], pass_fds=(3,))
os.close(3)
theirs.close()
log = open(LOG, "w", buffering=1)
lock = threading.Lock()
def relay(src, dst, who):
    f = src.makefile("rb")
    for line in f:
        with lock:
            log.write(who + ": " + line.decode().rstrip("\n") + "\n")
        dst.sendall(line)
    dst.shutdown(socket.SHUT_WR)
t = threading.Thread(target=relay, args=(driver, mine, "driver"), daemon=True)
t.start()
try:
    relay(mine, driver, "sweep")
except OSError:
    pass
sys.exit(child.wait())
"""


class AbRun(unittest.TestCase):
    def test_the_builds_take_turns_round_by_round_and_record_the_pair(self):
        with tempdir() as d:
            out = os.path.join(d, "ab")
            stdout, stderr, seen = watch(start_ab(out, "--pace", "pass"), out)
            self.assertEqual(stdout.splitlines(), [f"base: {out}/base/results.json", f"new: {out}/new/results.json"],
                             stderr)

            # Seen from outside: one build wrote at a time, in ABBA order.
            self.assertEqual(seen[-1], (3 * CONFIGS, 3 * CONFIGS), seen)
            for state in seen:
                self.assertTrue(alternating(state, 3), f"{state} is not a state of ABBA alternation: {seen}")
            # A build's round of 6 configurations lasts many polls: the watch saw the pair mid-way.
            self.assertGreaterEqual(len(seen), 6, seen)
            # The driver says the same, one line a round.
            rounds = re.findall(r"^ringbench ab: round (\d): (\w+) [\d.]+ s, then (\w+) [\d.]+ s$", stderr, re.M)
            self.assertEqual(rounds, [("1", "base", "new"), ("2", "new", "base"), ("3", "base", "new")], stderr)

            sha = git_line()
            self.assertRegex(sha or "", r"^([0-9a-f]{7,40}|unknown)$")
            docs = {role: read_json(os.path.join(out, role, "results.json")) for role in ("base", "new")}
            schema = read_json(SCHEMA)
            for role, doc in docs.items():
                with self.subTest(role):
                    jsonschema.validate(doc, schema)
                    self.assertEqual(doc["schema_version"], schema["version"])  # the format this build writes
                    self.assertIsNone(doc["stopped"])
                    pairing = doc["pairing"]
                    self.assertEqual(pairing["role"], role)
                    self.assertEqual(pairing["partner_git_sha"], sha)  # the same binary on both sides
                    self.assertEqual(pairing["partner_version"], doc["tool"]["version"])
                    self.assertEqual(pairing["first_by_round"], ["base", "new", "base"])
                    self.assertEqual(pairing["unit"], "pass")
                    self.assertEqual(len(doc["runs"]), CONFIGS)
                    for r in doc["runs"]:
                        self.assertEqual(r["status"], "ok", r["reason"])
                        self.assertEqual(r["timing"]["rounds"], 3)
                        self.assertTrue(r["timing"]["interleaved"])
                    self.assertIn(f"--out {out}/{role}", doc["tool"]["command_line"])
                    with open(os.path.join(out, f"{role}.log")) as f:
                        self.assertIn(f"ringbench: {CONFIGS} ok, 0 failed, 0 skipped", f.read())
            self.assertEqual(docs["base"]["pairing"]["pair_id"], docs["new"]["pairing"]["pair_id"])
            self.assertEqual([r["config"]["id"] for r in docs["base"]["runs"]],
                             [r["config"]["id"] for r in docs["new"]["runs"]])

            # The next pair gets its own id.
            p = run("ab", BIN, *SMALL, "--repeats", "2", "--rounds", "2", "--out", os.path.join(d, "ab2"))
            self.assertEqual(p.returncode, 0, p.stderr)
            again = read_json(os.path.join(d, "ab2", "new", "results.json"))["pairing"]
            self.assertNotEqual(again["pair_id"], docs["new"]["pairing"]["pair_id"])
            self.assertEqual(again["first_by_round"], ["base", "new"])

    def test_by_configuration_the_builds_take_turns_one_round_at_a_time(self):
        with tempdir() as d:
            out = os.path.join(d, "ab")
            stdout, stderr, seen = watch(start_ab(out, "--pace", "configuration"), out)
            self.assertEqual(stdout.splitlines(), [f"base: {out}/base/results.json", f"new: {out}/new/results.json"],
                             stderr)
            # Seen from outside: each turn adds one configuration's round to one file, so neither
            # build is ever more than one round of one configuration ahead of the other.
            self.assertEqual(seen[-1], (3 * CONFIGS, 3 * CONFIGS), seen)
            for b, n in seen:
                self.assertLessEqual(abs(b - n), 1, f"({b}, {n}) is not a state of turns by configuration: {seen}")
            self.assertGreaterEqual(len(seen), 2 * CONFIGS, seen)
            rounds = re.findall(r"^ringbench ab: round (\d): base [\d.]+ s, new [\d.]+ s \(turns by configuration\)$",
                                stderr, re.M)
            self.assertEqual(rounds, ["1", "2", "3"], stderr)
            docs = {role: read_json(os.path.join(out, role, "results.json")) for role in ("base", "new")}
            schema = read_json(SCHEMA)
            for role, doc in docs.items():
                with self.subTest(role):
                    jsonschema.validate(doc, schema)
                    self.assertEqual(doc["pairing"]["unit"], "configuration")
                    # The first turn of each round: base in round 1, new in round 2, ...
                    self.assertEqual(doc["pairing"]["first_by_round"], ["base", "new", "base"])
                    self.assertEqual([r["timing"]["rounds"] for r in doc["runs"]], [3] * CONFIGS)
                    self.assertIn("--pace-unit configuration", doc["tool"]["command_line"])

    def test_by_default_the_builds_alternate_single_timed_passes_of_a_round_both_hold(self):
        with tempdir() as d:
            log = os.path.join(d, "tap.log")
            tap = os.path.join(d, "tap")
            with open(tap, "w") as f:
                f.write(TAP.format(bin=BIN, log=log))
            os.chmod(tap, 0o755)
            out = os.path.join(d, "ab")
            # 2 configurations, 2 rounds of 3 timed passes.
            p = run("ab", tap, *SMALL, "--repeats", "6", "--rounds", "2", "--out", out)
            self.assertEqual(p.returncode, 0, p.stderr)
            rounds = re.findall(r"^ringbench ab: round (\d): base [\d.]+ s, new [\d.]+ s \(turns by sample\)$",
                                p.stderr, re.M)
            self.assertEqual(rounds, ["1", "2"], p.stderr)
            with open(log) as f:
                heard = f.read().splitlines()
            # The base build asks before each round (step 0) and before each of its timed passes,
            # and each ask is answered by one go naming who goes first at that step.
            asks = [line[len("sweep: ready "):] for line in heard if line.startswith("sweep: ready ")]
            want = [f"{r} {c} {s}" for r in (1, 2) for c in (1, 2) for s in range(4)]
            self.assertEqual(asks, want, heard)
            self.assertEqual(heard[-1], "sweep: done", heard)
            firsts = [line[len("driver: go "):] for line in heard if line.startswith("driver: go ")]
            self.assertEqual(len(firsts), len(want), heard)
            # Counterbalanced step by step: who goes first swaps at every step of a round and from one
            # configuration's round to the next, so neither build always follows the other.
            for ask, first in zip(want, firsts):
                r, c, s = map(int, ask.split())
                self.assertEqual(first, "base" if (r + c - 1 + s) % 2 == 1 else "new", (ask, heard))
            docs = {role: read_json(os.path.join(out, role, "results.json")) for role in ("base", "new")}
            for role, doc in docs.items():
                with self.subTest(role):
                    jsonschema.validate(doc, read_json(SCHEMA))
                    self.assertEqual(doc["pairing"]["unit"], "sample")
                    self.assertEqual(doc["pairing"]["first_by_round"], ["base", "new"])
                    self.assertIn("--pace-unit sample", doc["tool"]["command_line"])
                    for r in doc["runs"]:
                        self.assertEqual(r["status"], "ok", r["reason"])
                        self.assertEqual(r["timing"]["round_counts"], [3, 3])

    def test_a_base_from_before_turns_by_sample_takes_turns_by_configuration(self):
        with tempdir() as d:
            # A stand-in for a build of 2.7.0's time: it knows units configuration and pass only.
            older = script(d, "older", 'prev=; for a in "$@"; do if [ "$prev" = --pace-unit ] && [ "$a" = sample ]; '
                                       'then echo "ringbench: error: --pace-unit: sample: must be configuration or '
                                       'pass" >&2; exit 2; fi; prev=$a; done\n'
                                       f'exec "{BIN}" "$@"\n')
            out = os.path.join(d, "ab")
            p = run("ab", older, *SMALL, "--repeats", "2", "--rounds", "2", "--pace", "sample", "--out", out)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("predates taking turns by sample; the builds take turns one configuration's round at a time",
                          p.stderr)
            for role in ("base", "new"):
                doc = read_json(os.path.join(out, role, "results.json"))
                self.assertEqual(doc["pairing"]["unit"], "configuration", role)
                self.assertEqual([r["status"] for r in doc["runs"]], ["ok", "ok"])

    def test_a_base_from_before_turns_by_configuration_is_paced_by_pass(self):
        with tempdir() as d:
            # A stand-in for a build of 2.6.0's time: it refuses --pace-unit as that build's `run` did.
            older = script(d, "older", 'for a in "$@"; do if [ "$a" = --pace-unit ]; then echo "ringbench: error: '
                                       'run: value --pace-unit is invalid: unknown option" >&2; exit 2; fi; done\n'
                                       f'exec "{BIN}" "$@"\n')
            out = os.path.join(d, "ab")
            p = run("ab", older, *SMALL, "--repeats", "2", "--rounds", "2", "--out", out)
            self.assertEqual(p.returncode, 0, p.stderr)
            # Asked by sample (the default), it steps down twice.
            self.assertIn("predates taking turns by sample; the builds take turns one configuration's round at a time",
                          p.stderr)
            self.assertIn("predates taking turns by configuration; the builds take turns one pass of rounds at a time",
                          p.stderr)
            self.assertRegex(p.stderr, r"ringbench ab: round 2: new [\d.]+ s, then base [\d.]+ s")
            for role in ("base", "new"):
                doc = read_json(os.path.join(out, role, "results.json"))
                self.assertEqual(doc["pairing"]["unit"], "pass", role)
                self.assertNotIn("--pace-unit", doc["tool"]["command_line"])
                self.assertEqual([r["status"] for r in doc["runs"]], ["ok", "ok"])

    def test_a_fault_planted_in_the_new_build_alone_fails_the_pair(self):
        with tempdir() as d:
            out = os.path.join(d, "ab")
            p = run("ab", BIN, *SMALL, "--repeats", "2", "--rounds", "2", "--inject-fault-new",
                    "throw@1", "--out", out)
            self.assertEqual(p.returncode, 1, p.stderr)  # as `run`: a configuration failed
            base = read_json(os.path.join(out, "base", "results.json"))
            new = read_json(os.path.join(out, "new", "results.json"))
            self.assertEqual([r["status"] for r in base["runs"]], ["ok", "ok"])
            self.assertEqual([r["status"] for r in new["runs"]], ["ok", "failed"])
            self.assertNotIn("inject-fault", base["tool"]["command_line"])

    def test_a_build_killed_mid_run_stops_the_other_and_what_was_measured_stays(self):
        # By sample the base build is most often stopped inside a round (before one of its timed
        # passes): that round is not kept, the rounds before it are.
        for unit in ("configuration", "sample"):
            with self.subTest(unit), tempdir() as d:
                out = os.path.join(d, "ab")
                proc = start_ab(out, "--pace", unit, rounds=5)
                jsonl = os.path.join(out, "new", "results.jsonl")
                deadline = time.time() + 300
                while lines_in(jsonl) < CONFIGS + 1 and proc.poll() is None and time.time() < deadline:
                    time.sleep(0.005)
                pid = pid_of(out, "new")
                self.assertIsNotNone(pid, "the new build's process was not found mid-run")
                os.kill(pid, signal.SIGKILL)
                stdout, stderr = proc.communicate(timeout=300)
                self.assertEqual(proc.returncode, 1, stderr)
                last = stderr.strip().splitlines()[-1]
                self.assertRegex(last, r"^ringbench: failed: the new build ended in round \d \(killed by signal 9")
                self.assertIn("the other build was stopped", last)
                # The base build wrote its results with the reason; the new one's rounds stay in its jsonl.
                base = read_json(os.path.join(out, "base", "results.json"))
                self.assertRegex(base["stopped"], r"^stopped by the A/B driver: the new build ended in round \d")
                self.assertTrue(all(r["status"] == "ok" and r["timing"]["rounds"] < 5 for r in base["runs"]), base["runs"])
                self.assertEqual(base["pairing"]["role"], "base")
                self.assertGreaterEqual(lines_in(jsonl), CONFIGS + 1)
                self.assertFalse(os.path.exists(os.path.join(out, "new", "results.json")))
                self.assertIsNone(pid_of(out, "base"), "the base build outlived the pair")

    def test_a_driver_that_dies_stops_both_builds_with_their_results_written(self):
        with tempdir() as d:
            out = os.path.join(d, "ab")
            proc = start_ab(out, rounds=5)
            deadline = time.time() + 300
            while lines_in(os.path.join(out, "new", "results.jsonl")) < 1 and proc.poll() is None \
                    and time.time() < deadline:
                time.sleep(0.005)
            proc.kill()
            proc.communicate(timeout=60)
            for role in ("base", "new"):
                results = os.path.join(out, role, "results.json")
                while not os.path.exists(results) and time.time() < deadline:
                    time.sleep(0.05)
                doc = read_json(results)
                self.assertIn("A/B driver is gone", doc["stopped"] or "", role)
                # By sample, the base build may have been waiting inside its first round, which it
                # then does not keep: it may end with no timing at all; the new build ran a round.
                rounds = [r["timing"]["rounds"] for r in doc["runs"] if r["timing"]]
                self.assertTrue(all(k < 5 for k in rounds), (role, rounds))
                if role == "new":
                    self.assertTrue(rounds, doc["runs"])
            while (pid_of(out, "base") or pid_of(out, "new")) and time.time() < deadline:
                time.sleep(0.05)
            self.assertIsNone(pid_of(out, "base") or pid_of(out, "new"))

    def test_what_cannot_be_paired_is_refused_in_one_line(self):
        with tempdir() as d:
            old = script(d, "old", 'if [ "$1" = --version ]; then echo "ringbench 0.0.9"; echo "built with: cpu"; fi\n')
            nopace = script(d, "nopace", 'if [ "$1" = --version ]; then printf "ringbench 0.0.9\\ngit: 0123456789ab\\n"; '
                                         'exit 0; fi\necho "ringbench: error: command line: The following argument '
                                         'was not expected: --pace-fd (see --help)" >&2\nexit 2\n')
            foreign = script(d, "foreign", 'echo "Python 3.11.2"\n')
            out = os.path.join(d, "ab")
            cases = [
                # (BASE_BIN, extra arguments, the field named, a part of the rule)
                (old, [], "BASE_BIN", "predates A/B runs (ringbench 0.0.9 prints no 'git:' line"),
                (nopace, [], "BASE_BIN", "predates A/B runs: its `run` refused the flags"),
                (foreign, [], "BASE_BIN", "not a ringbench binary"),
                (os.path.join(d, "missing"), [], "BASE_BIN", "does not exist"),
                (BIN, ["--no-interleave"], "--no-interleave", "interleaved schedule"),
                (BIN, ["--max-noise", "2"], "--max-noise", "same fixed rounds"),
                (BIN, ["--pace-fd", "3"], "--pace-fd", "`ab` passes it to each build itself"),
                (BIN, ["--pace-unit", "pass"], "--pace-unit", "`ab` passes it to each build itself"),
                (BIN, ["--pace", "round"], "--pace", "configuration"),
                (BIN, ["--frob"], "run options", "neither `ab` nor `run` takes it"),
                (BIN, ["--seq", "0"], "--seq", "positive integer"),
                # the sweep's rules too: a planted fault past the sweep would compare a clean new build
                (BIN, ["--inject-fault-new", "slow:50@99"], "--inject-fault", "N = 99"),
            ]
            before = folder_state(d)
            for base, extra, field, rule in cases:
                with self.subTest(base=os.path.basename(base), extra=extra):
                    p = run("ab", base, *SMALL, *extra, "--out", out)
                    self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
                    lines = p.stderr.strip().splitlines()
                    self.assertEqual(len(lines), 1, p.stderr)
                    self.assertIn(f"ringbench: error: {field}:", lines[0])
                    self.assertIn(rule, lines[0])
                    if base is old or base is nopace:
                        self.assertIn("compare against its stored results instead", lines[0])
                    self.assertEqual(folder_state(d), before, "a refused pair left files behind")

    def test_the_pacing_flags_of_run_are_refused_where_they_cannot_work(self):
        with tempdir() as d:
            out = os.path.join(d, "r")
            cases = [
                (["--pace-fd", "5"], "--pace-fd", "not an open socket"),
                (["--pace-fd", "2"], "--pace-fd", "[3, 1048576]"),
                (["--pair-role", "new"], "--pair-role", "needs --pace-fd"),
                (["--pace-fd", "5", "--pair-role", "new"], "--pair-id", "all of --pair-role"),
                (["--pace-fd", "5", "--no-interleave"], "--no-interleave", "interleaved schedule"),
                (["--pace-unit", "configuration"], "--pace-unit", "needs --pace-fd"),
                (["--pace-fd", "5", "--pace-unit", "round"], "--pace-unit", "must be configuration, pass or sample"),
                (["--pace-fd", "5", "--pair-role", "judge", "--pair-id", "p1", "--partner-sha", "0123abc",
                  "--partner-version", "0.1.0"], "--pair-role", "must be base or new"),
            ]
            for extra, field, rule in cases:
                with self.subTest(extra=extra):
                    p = run("run", *SMALL, *extra, "--out", out)
                    self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
                    lines = p.stderr.strip().splitlines()
                    self.assertEqual(len(lines), 1, p.stderr)
                    self.assertIn(f"ringbench: error: {field}:", lines[0])
                    self.assertIn(rule, lines[0])
                    self.assertEqual(os.listdir(d), [])


if __name__ == "__main__":
    unittest.main()
