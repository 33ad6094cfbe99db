"""Hostile input, round four (issue 42): scripts/nightly.sh holds its folders. A flag without its
value is bad usage, exit 2 (it was 1, which cron reads as a regression); -o or -b inside the history
is refused (the night then poisoned every later trend); and a second night into the same -o is
refused before it deletes anything (a second A/B night deleted the first pair's folder while it
ran). Each case asserts the exit code, the one stderr line naming the flag, and that no file
changed. Nothing here measures: ringbench is a stand-in that would fail loudly if it were run."""
import fcntl
import os
import subprocess
import unittest

from ringbench_test import SOURCE_DIR, folder_state, shell_script as stand_in, tempdir

NIGHTLY = os.path.join(SOURCE_DIR, "scripts", "nightly.sh")


def nightly(cwd, *args, **env):
    full = dict(os.environ, **env)
    return subprocess.run(["bash", NIGHTLY, *args], capture_output=True, text=True, env=full, cwd=cwd, timeout=120)


class NightlyFolders(unittest.TestCase):
    def setUp(self):
        self.tmp = tempdir()
        self.d = self.tmp.name
        # A ringbench that must not be reached: every case is refused before it would run.
        self.bin = stand_in(self.d, "ringbench", 'echo "ringbench: stand-in ran: $*" >&2\nexit 3\n')
        self.hist = os.path.join(self.d, "history")
        os.makedirs(self.hist)
        with open(os.path.join(self.hist, "2024-05-01.json"), "w") as f:
            f.write("{}\n")

    def tearDown(self):
        self.tmp.cleanup()

    def refused(self, args, *parts, env=None):
        before = folder_state(self.d)
        p = nightly(self.d, *args, RINGBENCH=self.bin, **(env or {}))
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        lines = p.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        for part in parts:
            self.assertIn(part, lines[0])
        self.assertEqual(folder_state(self.d), before, "a refused night changed files")
        return lines[0]

    def test_a_flag_without_its_value_is_bad_usage(self):
        for flag in ("-p", "-b", "-H", "-o", "-d", "-B", "--ab", "--builds"):
            with self.subTest(flag=flag):
                self.refused(["-H", self.hist, flag], f"nightly: {flag} needs a value")
                self.refused([flag, "", "-H", self.hist], f"nightly: {flag} needs a value")

    def test_an_output_or_a_baseline_inside_the_history_is_refused(self):
        h = self.hist
        cases = [
            (["-o", os.path.join(h, "tonight")], "-o '", "lies inside the history"),
            (["-o", h], "-o '", "lies inside the history"),
            (["-o", os.path.join(h, "..", "history", "x")], "-o '", "lies inside the history"),
            (["-b", os.path.join(h, "baseline.json")], "-b '", "lies inside the history"),
            (["-b", os.path.join(h, "2024-05-01.json")], "-b '", "lies inside the history"),
            (["-o", os.path.join(self.d, "out"), "-H", os.path.join(self.d, "out", "ab", "h")], "-H '",
             "which each night replaces"),
        ]
        for extra, flag, rule in cases:
            with self.subTest(extra=extra):
                args = ["-H", h, "-o", os.path.join(self.d, "out"), "-d", "2024-05-02", *extra]
                self.refused(args, f"nightly: {flag}", rule)

    def test_a_second_night_into_one_folder_deletes_nothing(self):
        # The first night holds -o's lock (as its script does) and has its pair's folder there.
        repo = os.path.join(self.d, "repo")
        os.makedirs(repo)
        git = lambda *a: subprocess.run(["git", "-C", repo, *a], capture_output=True, text=True, check=True).stdout
        git("init", "-q")
        git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "one")
        commit = git("rev-parse", "HEAD").strip()
        base = stand_in(self.d, "base", f'if [ "$1" = --version ]; then echo "ringbench 0.1.0"; '
                                        f'echo "git: {commit[:12]}"; exit 0; fi\nexit 3\n')
        out = os.path.join(self.d, "night")
        os.makedirs(os.path.join(out, "ab", "base"))
        with open(os.path.join(out, "ab", "base", "results.jsonl"), "w") as f:
            f.write("{}\n")
        with open(os.path.join(out, "compare.json"), "w") as f:
            f.write("{}\n")
        fd = os.open(out, os.O_RDONLY)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        try:
            for mode in (["-B", commit], []):
                with self.subTest(mode=mode or "plain"):
                    self.refused(["-H", self.hist, "-o", out, "-d", "2024-05-02", *mode], f"nightly: -o '{out}' is in use",
                                 env=dict(RINGBENCH_REPO=repo, RINGBENCH_BASE_BIN=base))
        finally:
            os.close(fd)


if __name__ == "__main__":
    unittest.main()
