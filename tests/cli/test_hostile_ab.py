"""Hostile input, round four (issue 42): `ringbench ab` holds its folder. A second pair into one
--out, or a folder of it another ringbench holds, is refused before a file is touched (it deleted
the first pair's log and blamed the base build); each build dumps into its own folder; a base
whose --version lingers, or that never reaches its first round while the driver is told to stop,
does not hang the driver, and no process of a build outlives a driver killed by a second signal
(issue 51); a build that wrote files is never reported as refused input (exit 2
says nothing was written), and one that wrote no results fails the pair. Each case states its exit
code, the one stderr line naming the field, and what may and may not have changed on disk. The
builds are stand-ins (shell scripts) where a real build cannot misbehave on cue; the tiny sweep
of one configuration is the real binary's."""
import fcntl
import os
import signal
import subprocess
import time
import unittest

from ringbench_test import BIN, folder_state, run, shell_script as script, tempdir

# One configuration, one round of two timed passes: a second or two for the pair.
ONE = ["--seq", "64", "--cp", "1", "--split", "zigzag", "--heads", "2", "--kv-heads", "1", "--head-dim", "8",
       "--warmup", "0", "--repeats", "2", "--rounds", "1"]
VERSION = 'if [ "$1" = --version ]; then echo "ringbench 0.1.0"; echo "git: 0123456789ab"; exit 0; fi\n'


def hold_lock(folder):
    """Holds `folder`'s lock as a running ringbench would (a flock on the folder); returns the fd."""
    os.makedirs(folder, exist_ok=True)
    fd = os.open(folder, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie has exited: only its parent's wait is missing.
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0] != "Z"


def processes_naming(path):
    """The pids of live processes whose command line names something under `path`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if path.encode() in f.read() and alive(int(entry)):
                    found.append(int(entry))
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            pass
    return found


class HostileAb(unittest.TestCase):
    def one_line(self, p, code, *parts):
        self.assertEqual(p.returncode, code, p.stdout + p.stderr)
        lines = p.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        for part in parts:
            self.assertIn(part, lines[0])
        return lines[0]

    def test_a_folder_another_ringbench_holds_is_refused_before_a_file_is_touched(self):
        # The first pair's log and results stay as they were; the error names --out and the folder,
        # never BASE_BIN.
        for held in ("", "base", "new"):
            with self.subTest(held=held or "the pair's folder"), tempdir() as d:
                out = os.path.join(d, "ab")
                os.makedirs(os.path.join(out, "base"))
                with open(os.path.join(out, "base.log"), "w") as f:
                    f.write("the first pair's log\n")
                with open(os.path.join(out, "base", "results.jsonl"), "w") as f:
                    f.write("{}\n")
                fd = hold_lock(os.path.join(out, held) if held else out)
                try:
                    before = folder_state(d)
                    p = run("ab", BIN, *ONE, "--out", out, timeout=120)
                    line = self.one_line(p, 2, "ringbench: error: --out:", "another ringbench is writing into this folder")
                    self.assertIn(os.path.join(out, held) if held else out, line)
                    self.assertNotIn("BASE_BIN", line)
                    self.assertEqual(folder_state(d), before)
                finally:
                    os.close(fd)

    def test_each_build_dumps_into_its_own_folder(self):
        # One --dump folder for both: the second build replaced the first's files, silently.
        with tempdir() as d:
            dump, out = os.path.join(d, "dump"), os.path.join(d, "ab")
            p = run("ab", BIN, *ONE, "--dump", dump, "--out", out, timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(sorted(os.listdir(dump)), ["base", "new"])
            for role in ("base", "new"):
                (config,) = os.listdir(os.path.join(dump, role))
                self.assertEqual(sorted(os.listdir(os.path.join(dump, role, config))),
                                 ["k.npy", "o.npy", "q.npy", "v.npy"])
                self.assertIn(f"--dump {dump}/{role}", read_command_line(out, role))

    def test_a_base_whose_version_lingers_does_not_hang_the_driver(self):
        # It prints a version, closes its output and stays alive: waitpid waited for it forever.
        with tempdir() as d:
            base = script(d, "lingers", 'if [ "$1" = --version ]; then echo "ringbench 0.1.0"; '
                                        'echo "git: 0123456789ab"; exec >&-; exec sleep 60; fi\nexit 2\n')
            out = os.path.join(d, "ab")
            before = folder_state(d)
            p = run("ab", base, *ONE, "--out", out, timeout=30)
            self.one_line(p, 2, "ringbench: error: BASE_BIN:", "did not exit within 3 s of closing its output")
            self.assertEqual(folder_state(d), before)

    def test_a_signal_before_the_first_round_ends_the_driver_and_the_build_it_started(self):
        # The base build never reaches its first round; SIGTERM to the driver went unheard until it
        # did, and the driver then started the new build all the same.
        with tempdir() as d:
            pid_file = os.path.join(d, "base.pid")
            base = script(d, "stalls", VERSION + f'echo $$ > "{pid_file}"\nexec sleep 60\n')
            out = os.path.join(d, "ab")
            proc = subprocess.Popen([BIN, "ab", base, *ONE, "--out", out], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
            try:
                deadline = time.time() + 60
                while not os.path.exists(pid_file) and time.time() < deadline and proc.poll() is None:
                    time.sleep(0.02)
                time.sleep(0.2)
                with open(pid_file) as f:
                    pid = int(f.read())
                proc.send_signal(signal.SIGTERM)
                stdout, stderr = proc.communicate(timeout=20)
                self.assertEqual(proc.returncode, 128 + signal.SIGTERM, stderr)
                self.assertEqual(stderr.strip().splitlines(),
                                 ["ringbench ab: interrupted by SIGTERM before the base build's first round"])
                self.assertFalse(alive(pid), "the base build outlived the driver")
                self.assertFalse(os.path.exists(os.path.join(out, "new.log")), "the new build was started")
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.communicate()
                if os.path.exists(pid_file):
                    with open(pid_file) as f:
                        text = f.read()
                    try:
                        os.kill(int(text), signal.SIGKILL)
                    except (ProcessLookupError, ValueError):
                        pass

    def test_two_sigterms_leave_no_process_of_a_build_running(self):
        # Issue 51, item 10: the first SIGTERM lets the base build's turn end; the second kills the
        # driver the usual way, and the build's own child ran on (the driver only ever signalled the
        # build's pid, and was gone). Each build is a process group, which a guard ends once the
        # driver died and the build left. The stand-in takes its first turn and never answers it.
        with tempdir() as d:
            pids, went = os.path.join(d, "pids"), os.path.join(d, "went")
            base = script(d, "stubborn", VERSION + f'sleep 60 &\necho $! >> "{pids}"\necho $$ >> "{pids}"\n'
                                                   f'echo "ready 1 1 0" >&3\nread line <&3\necho "$line" > "{went}"\n'
                                                   'read line <&3\nexit 0\n')
            proc = subprocess.Popen([BIN, "ab", base, *ONE, "--out", os.path.join(d, "ab")],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            started = []
            try:
                deadline = time.time() + 60
                while not os.path.exists(went) and time.time() < deadline and proc.poll() is None:
                    time.sleep(0.02)
                with open(pids) as f:
                    started = [int(x) for x in f.read().split()]
                self.assertTrue(os.path.exists(went), "the base build's first turn did not come")
                proc.send_signal(signal.SIGTERM)
                time.sleep(0.3)  # past the 100 ms in which a second one is the echo of the first
                proc.send_signal(signal.SIGTERM)
                proc.communicate(timeout=20)
                self.assertEqual(proc.returncode, -signal.SIGTERM)
                deadline = time.time() + 5
                while any(alive(p) for p in started) and time.time() < deadline:
                    time.sleep(0.02)
                self.assertEqual([p for p in started if alive(p)], [],
                                 "a process of the base build outlived the driver")
                # The new build was waiting for its first turn: it sees its pacing socket closed and
                # writes what it has into ab/new, or its guard ends it (kGuardLeaderGrace, twice).
                # Until it has, the folder is still being written (the tempdir's removal raced it).
                deadline = time.time() + 90
                while processes_naming(d) and time.time() < deadline:
                    time.sleep(0.05)
                self.assertEqual(processes_naming(d), [], "a process of the new build outlived its guard")
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.communicate()
                for p in started:
                    try:
                        os.kill(p, signal.SIGKILL)
                    except ProcessLookupError:
                        pass

    def test_a_build_that_wrote_files_is_never_reported_as_refused_input(self):
        # It writes its results and then exits 2: exit 2 ("nothing written") named BASE_BIN's
        # options and deleted its log, leaving its files behind.
        with tempdir() as d:
            base = script(d, "writes", VERSION + 'prev=; for a in "$@"; do if [ "$prev" = --out ]; then mkdir -p "$a"; '
                                                 'echo "{}" > "$a/results.json"; fi; prev=$a; done\n'
                                                 'echo "ringbench: error: late: value x is invalid: refused late" >&2\n'
                                                 'exit 2\n')
            out = os.path.join(d, "ab")
            p = run("ab", base, *ONE, "--out", out, timeout=120)
            line = self.one_line(p, 1, "ringbench: failed: the base build ended before its first round (exit 2",
                                 "refused late", f"what it wrote is in {out}/base")
            self.assertNotIn("BASE_BIN", line)
            self.assertTrue(os.path.isfile(os.path.join(out, "base", "results.json")))
            self.assertTrue(os.path.isfile(os.path.join(out, "base.log")))

    def test_a_build_that_wrote_no_results_fails_the_pair(self):
        # It runs the sweep, says it is done and exits 0, but leaves no results.json: the pair
        # passed (exit 0) with one side missing.
        with tempdir() as d:
            base = script(d, "loses", f'"{BIN}" "$@"; rc=$?\nprev=; for a in "$@"; do if [ "$prev" = --out ]; then '
                                      'rm -f "$a/results.json"; fi; prev=$a; done\nexit $rc\n')
            out = os.path.join(d, "ab")
            p = run("ab", base, *ONE, "--out", out, timeout=300)
            self.assertEqual(p.returncode, 1, p.stderr)
            last = p.stderr.strip().splitlines()[-1]
            self.assertEqual(last, f"ringbench: failed: the base build exited 0 after its last round but wrote no "
                                   f"results: {out}/base/results.json does not exist; see {out}/base.log")
            self.assertTrue(os.path.isfile(os.path.join(out, "new", "results.json")))


def read_command_line(out, role):
    import json
    with open(os.path.join(out, role, "results.json")) as f:
        return json.load(f)["tool"]["command_line"]


if __name__ == "__main__":
    unittest.main()
