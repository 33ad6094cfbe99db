"""Hostile but realistic use of what ringbench writes and re-reads: output paths that name a
device, a pipe or a folder; two sweeps into one folder; a sweep stopped by coreutils `timeout`; a
full disk; a damaged results.jsonl; a gzip bomb. Devices are made by the test in its own temporary
folder (mknod): CI runs as root, and a regression must never be able to reach a system device."""
import gzip
import json
import os
import resource
import signal
import stat
import subprocess
import time
import unittest

from ringbench_test import BIN, LONG_SWEEP, SOURCE_DIR, TINY, read_json, run, start_and_wait_for_lines, tempdir

class HostileOutputs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempdir()
        cls.d = cls.tmp.name
        p = run("run", *TINY, "--out", os.path.join(cls.d, "base"))
        assert p.returncode == 0, p.stderr
        cls.results = os.path.join(cls.d, "base", "results.json")
        os.makedirs(os.path.join(cls.d, "hist"))
        with open(cls.results) as f, open(os.path.join(cls.d, "hist", "2026-11-01.json"), "w") as g:
            g.write(f.read())

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def node(self, name, kind):
        path = os.path.join(self.d, name)
        if not os.path.exists(path):
            if kind == "chr":
                try:
                    os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # what /dev/null is
                except PermissionError:
                    self.skipTest("mknod needs root")
            else:
                os.mkfifo(path)
        return path

    def assert_refused(self, argv, flag, path, kind_test):
        p = run(*argv)
        self.assertEqual(p.returncode, 2, f"{argv}: {p.stdout}{p.stderr}")
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertIn(flag, p.stderr)
        self.assertTrue(kind_test(os.stat(path).st_mode), f"{argv} replaced {path}")

    def test_a_closed_or_full_stderr_costs_no_measurement(self):
        # `2>&1 | head -1` closes the pipe after the first progress line (SIGPIPE killed the sweep,
        # exit 141); `2>/dev/full` fails every write (SIGABRT); neither may cost what was measured.
        with tempdir() as d:
            out = os.path.join(d, "piped")
            cmd = " ".join([BIN, "run", *TINY, "--out", out])
            p = subprocess.run(["bash", "-c", cmd + ' 2>&1 | head -1 >/dev/null; exit "${PIPESTATUS[0]}"'],
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(len(read_json(os.path.join(out, "results.json"))["runs"]), 6)
            out = os.path.join(d, "full")
            with open("/dev/full", "w") as full:
                p = subprocess.run([BIN, "run", *TINY, "--out", out], stdout=full, stderr=full, timeout=120)
            self.assertEqual(p.returncode, 0)
            self.assertEqual(len(read_json(os.path.join(out, "results.json"))["runs"]), 6)

    def test_a_file_size_limit_is_an_error_not_a_signal(self):
        # `ulimit -f` sends SIGXFSZ at the limit; ignored, the write fails with EFBIG, said in a line.
        with tempdir() as d:
            out = os.path.join(d, "res")
            cmd = " ".join([BIN, "run", *TINY, "--out", out])
            p = subprocess.run(["bash", "-c", "ulimit -f 4; " + cmd], capture_output=True, text=True, timeout=120)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn("File too large", p.stderr)

    def test_an_output_never_replaces_an_input_or_another_output(self):
        # Compared by file identity: a link to the input is the input.
        with tempdir() as d:
            out = os.path.join(d, "res")
            self.assertEqual(run("run", *TINY, "--out", out).returncode, 0)
            res = os.path.join(out, "results.json")
            with open(res, "rb") as f:
                before = f.read()
            link = os.path.join(d, "link.json")
            os.symlink(res, link)
            cases = [
                (["report", res, "-o", res], "--out"),
                (["report", res, "-o", link], "--out"),
                (["compare", res, res, "--json-out", res], "--json-out"),
                (["compare", res, res, "--html", os.path.join(d, "x"), "--json-out", os.path.join(d, "x")],
                 "--json-out"),
                (["trend", d, "--baseline", res, "-o", link], "--out"),
            ]
            for argv, flag in cases:
                with self.subTest(" ".join(argv[:1] + [flag])):
                    p = run(*argv)
                    self.assertEqual(p.returncode, 2, p.stderr)
                    self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
                    self.assertIn(flag, p.stderr)
                    with open(res, "rb") as f:
                        self.assertEqual(f.read(), before, "an input was replaced")
                    self.assertFalse(os.path.exists(os.path.join(d, "x")))

    def test_no_output_flag_replaces_a_device_or_a_pipe(self):
        for kind, is_kind in (("chr", stat.S_ISCHR), ("fifo", stat.S_ISFIFO)):
            dev = self.node(f"node-{kind}", kind)
            with self.subTest(kind):
                self.assert_refused(["report", self.results, "-o", dev], "--out", dev, is_kind)
                self.assert_refused(["compare", self.results, self.results, "--json-out", dev], "--json-out", dev, is_kind)
                self.assert_refused(["compare", self.results, self.results, "--html", dev], "--html", dev, is_kind)
                prof = os.path.join(SOURCE_DIR, "profiles", "acceptance-cpu.json")
                self.assert_refused(["accept", prof, "--results", self.results, "--junit", dev], "--junit", dev, is_kind)
                self.assert_refused(["trend", os.path.join(self.d, "hist"), "-o", dev], "--out", dev, is_kind)
                self.assert_refused(["run", *TINY, "--out", dev], "--out", dev, is_kind)
                self.assert_refused(["run", *TINY, "--dump", dev, "--out", os.path.join(self.d, "o")], "--dump", dev,
                                    is_kind)

    def test_report_to_a_folder_leaves_nothing_behind(self):
        before = sorted(os.listdir(self.d))
        p = run("report", self.results, "-o", ".", cwd=self.d)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(sorted(os.listdir(self.d)), before)

    def test_a_folder_named_results_json_is_refused_before_the_sweep(self):
        out = os.path.join(self.d, "blocked")
        os.makedirs(os.path.join(out, "results.json"))
        p = run("run", *TINY, "--out", out)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("results.json", p.stderr)
        self.assertEqual(os.listdir(out), ["results.json"])  # nothing ran, nothing was left

    def test_two_sweeps_into_one_folder_the_second_is_refused(self):
        out = os.path.join(self.d, "shared")
        first = start_and_wait_for_lines(out, 1)
        try:
            self.assertIsNone(first.poll(), "the first sweep ended before the second could start")
            p = run("run", *TINY, "--out", out)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("another ringbench is writing into this folder", p.stderr)
        finally:
            first.send_signal(signal.SIGINT)
            first.wait(timeout=300)
            first.stderr.close()
        doc = read_json(os.path.join(out, "results.json"))
        seqs = {r["config"]["seq"] for r in doc["runs"]}
        self.assertEqual(seqs, {512}, "the refused sweep (S=64) wrote into the first one's results")
        with open(os.path.join(out, "results.jsonl")) as f:
            for line in f:
                json.loads(line)  # no torn or mixed line

    def test_the_command_line_is_recorded_with_its_flags(self):
        doc = read_json(self.results)
        line = doc["tool"]["command_line"]
        self.assertTrue(line.startswith("ringbench run --seq 64 --cp 1,2 --heads 2"), line)
        self.assertIn("--out", line)

    def test_coreutils_timeout_still_leaves_results_and_report(self):
        # `timeout` sends TERM to ringbench and then to its process group: one kill, two signals.
        for attempt in range(3):
            with self.subTest(attempt=attempt), tempdir() as t:
                out = os.path.join(t, "res")
                p = subprocess.run(["timeout", "2", BIN, *LONG_SWEEP, "--out", out], capture_output=True, text=True,
                                   timeout=300)
                self.assertEqual(p.returncode, 124, p.stderr[-2000:])
                self.assertTrue(os.path.exists(os.path.join(out, "results.json")), p.stderr[-2000:])
                self.assertTrue(os.path.exists(os.path.join(out, "report.html")))
                self.assertIn("(interrupted)", p.stderr)

    def test_the_same_signal_twice_at_once_is_one_request_to_stop(self):
        with tempdir() as t:
            out = os.path.join(t, "res")
            proc = start_and_wait_for_lines(out, 1)
            self.assertIsNone(proc.poll())
            proc.send_signal(signal.SIGTERM)
            proc.send_signal(signal.SIGTERM)
            rc = proc.wait(timeout=300)
            err = proc.stderr.read()
            proc.stderr.close()
            self.assertEqual(rc, 128 + signal.SIGTERM, err[-2000:])
            self.assertTrue(os.path.exists(os.path.join(out, "results.json")))

    def test_a_second_signal_later_still_kills_at_once(self):
        with tempdir() as t:
            proc = start_and_wait_for_lines(os.path.join(t, "res"), 1)
            self.assertIsNone(proc.poll())
            proc.send_signal(signal.SIGTERM)
            time.sleep(0.3)
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
            rc = proc.wait(timeout=300)
            proc.stderr.close()
            self.assertIn(rc, (-signal.SIGTERM, 128 + signal.SIGTERM))

    def test_a_full_disk_names_the_os_error_and_leaves_no_temporary(self):
        out_dir = os.path.join(self.d, "full")
        os.makedirs(out_dir)

        def small_files():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails with EFBIG instead
            resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

        p = subprocess.run([BIN, "report", self.results, "-o", os.path.join(out_dir, "r.html")], capture_output=True,
                           text=True, preexec_fn=small_files, timeout=120)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("r.html", p.stderr)
        self.assertIn("File too large", p.stderr)
        self.assertEqual(os.listdir(out_dir), [])

    def test_a_torn_last_line_is_skipped_with_a_note_and_a_damaged_one_is_refused(self):
        with open(os.path.join(self.d, "base", "results.jsonl")) as f:
            lines = f.read().splitlines()
        self.assertGreaterEqual(len(lines), 2)
        torn = os.path.join(self.d, "torn.jsonl")
        with open(torn, "w") as f:
            f.write("\n".join(lines) + "\n" + lines[0][:40])
        p = run("report", torn, "-o", os.path.join(self.d, "torn.html"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(f"skipped the torn last line {len(lines) + 1}", p.stderr)
        damaged = os.path.join(self.d, "damaged.jsonl")
        with open(damaged, "w") as f:
            f.write(lines[0][:40] + "\n" + "\n".join(lines) + "\n")
        for argv in (["report", damaged, "-o", os.path.join(self.d, "d.html")], ["compare", damaged, self.results]):
            p = run(*argv)
            self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
            self.assertIn("line 1", p.stderr)

    def test_a_size_beyond_int64_is_refused_and_a_huge_one_skipped(self):
        # S at its bound, heads and D near 2^31: the plan's counts would exceed int64 (signed
        # overflow, which UBSan caught in the plan before this rule): bad input, before anything
        # multiplies them.
        out = os.path.join(self.d, "huge")
        p = run("run", "--seq", "1099511627776", "--cp", "8", "--split", "zigzag", "--heads", "2000000000",
                "--kv-heads", "1", "--head-dim", "2000000000", "--repeats", "1", "--out", out)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("exceed what ringbench counts (2^62)", p.stderr)
        # Countable but far beyond memory: skipped with the estimate as its reason, never allocated.
        p = run("run", "--seq", "16777216", "--cp", "8", "--split", "zigzag", "--heads", "4096",
                "--kv-heads", "1", "--head-dim", "4096", "--repeats", "1", "--out", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        rec = read_json(os.path.join(out, "results.json"))["runs"][0]
        self.assertEqual(rec["status"], "skipped")
        self.assertIn("needs an estimated", rec["reason"])

    def test_analyze_refuses_a_device(self):
        zero = os.path.join(self.d, "zero")
        if not os.path.exists(zero):
            try:
                os.mknod(zero, 0o666 | stat.S_IFCHR, os.makedev(1, 5))  # what /dev/zero is
            except PermissionError:
                self.skipTest("mknod needs root")
        p = run("analyze", zero)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("not a device", p.stderr)

    def test_a_gzip_bomb_stops_at_the_cap(self):
        bomb = os.path.join(self.d, "bomb.json.gz")
        with gzip.open(bomb, "wb") as f:
            f.write(b'{"traceEvents": [' + b" " * (8 << 20) + b"]}")
        self.assertLess(os.path.getsize(bomb), 100 << 10)
        p = run("analyze", bomb, "--max-trace-mb", "4")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("--max-trace-mb", p.stderr)
        p = run("analyze", bomb, "--max-trace-mb", "16")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("no device events", p.stderr)  # read whole under a higher cap, and nothing in it


if __name__ == "__main__":
    unittest.main()
