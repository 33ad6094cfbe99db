"""Issue 32, part 1: the first minutes of a user with nccl-tests and NVBench habits. What they type
first is either taken as they meant it (-b/-e/-f, 4k, ranges) or refused in one line naming what
they typed with what ringbench calls it (did you mean --repeats?); `run --list` shows what a sweep
would run and runs nothing; a flag of another backend is refused or warned about as docs/cli.md's
table says; and the Nsight command of docs/nsight.md parses as shown."""
import json
import os
import re
import shlex
import time
import unittest

from ringbench_test import BIN, SANITIZED, SOURCE_DIR, folder_state, read_json, run, tempdir

SMALL = ["--heads", "2", "--kv-heads", "1", "--head-dim", "8", "--repeats", "1", "--warmup", "0", "--rounds", "1"]


def listed(stdout):
    """The rows of `run --list`'s table as dicts keyed by its header (# S c split variant ... id)."""
    lines = stdout.splitlines()
    head_at = next(i for i, line in enumerate(lines) if line.split()[:3] == ["#", "S", "c"])
    names = lines[head_at].replace("host mem", "host_mem").replace("device mem", "device_mem").split()
    rows = []
    for line in lines[head_at + 1:]:
        if line.startswith("skipped:"):
            break
        cells = re.sub(r"(\d) (B|KiB|MiB|GiB|TiB)\b", r"\1\2", line).replace("as #", "as#").split()
        rows.append(dict(zip(names, cells)))
    return rows


class FirstMinutes(unittest.TestCase):
    def setUp(self):
        self.tmp = tempdir()
        self.d = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def refused(self, *argv, words=()):
        """Runs `ringbench argv` in the test's folder; asserts exit 2, one line on stderr holding every
        word, nothing on stdout and nothing written. Returns the line."""
        before = folder_state(self.d)
        p = run(*argv, cwd=self.d)
        self.assertEqual(p.returncode, 2, f"{argv}: {p.stdout[-500:]}{p.stderr[-500:]}")
        lines = p.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertTrue(lines[0].startswith("ringbench: error: "), lines[0])
        for w in words:
            self.assertIn(w, lines[0])
        self.assertEqual(p.stdout, "")
        self.assertEqual(folder_state(self.d), before, f"{argv} wrote something")
        return lines[0]

    def list_seqs(self, *argv):
        before = folder_state(self.d)
        p = run("run", *argv, "--list", cwd=self.d)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(folder_state(self.d), before)
        return sorted({int(r["S"]) for r in listed(p.stdout)})

    # -- 1. unknown options and stray values ---------------------------------------------------------

    def test_the_issues_unknown_flags_are_named_with_a_suggestion(self):
        line = self.refused("run", "--repeat", "5", words=["--repeat", "unknown option", "did you mean --repeats?"])
        self.assertNotIn("profile", line, "the value 5 is not what is named")
        self.refused("run", "--iters", "5", words=["run: value --iters is invalid", "unknown option",
                                                   "did you mean --repeats"])
        self.refused("run", "-n", "5", words=["run: value -n is invalid", "did you mean --repeats"])
        self.refused("run", "--min-time", "0.5", words=["run: value --min-time is invalid", "--max-noise"])
        # One dash, a transposition, a flag with its value attached: still the nearest.
        self.refused("run", "-repeats", "5", words=["did you mean --repeats?"])
        self.refused("run", "--repaets=5", words=["value --repaets is", "did you mean --repeats?"])
        # Nothing near: named alone.
        line = self.refused("run", "--frobnicate", words=["value --frobnicate is invalid: unknown option"])
        self.assertNotIn("did you mean", line)
        # docs/nsight.md's old command: the profile is an argument.
        self.refused("run", "--profile", "profiles/smoke.json", words=["--profile", "ringbench run PROFILE.json"])

    def test_every_command_names_an_unknown_option(self):
        for argv, typed, nearest in [
                (["report", "x.json", "--ouptut", "r.html"], "--ouptut", None),
                (["compare", "a.json", "b.json", "--treshold", "5%"], "--treshold", "--threshold"),
                (["model", "--preset", "llama3-8b", "--seqs", "4k"], "--seqs", "--seq"),
                (["analyze", "t.json", "--jsn"], "--jsn", "--json"),
                (["trend", "h", "--titel", "x"], "--titel", "--title"),
                (["fleet", "r.json", "--min-node", "3"], "--min-node", "--min-nodes"),
                (["accept", "a.json", "--result", "r.json"], "--result", "--results")]:
            with self.subTest(argv=argv):
                line = self.refused(*argv, words=[f"{argv[0]}: value {typed} is invalid: unknown option"])
                if nearest:
                    self.assertIn(f"did you mean {nearest}?", line)

    def test_ab_names_an_unknown_run_option_with_a_suggestion(self):
        self.refused("ab", BIN, "--repeat", "5", "--out", os.path.join(self.d, "ab"),
                     words=["run options: value --repeat is invalid", "neither `ab` nor `run` takes it",
                            "did you mean --repeats?"])

    def test_ab_refuses_list(self):
        self.refused("ab", BIN, "--seq", "64", "--list", "--out", os.path.join(self.d, "ab"),
                     words=["--list", "ringbench run ... --list"])

    def test_a_stray_value_is_not_a_missing_profile(self):
        self.refused("run", "1024", words=["profile: value 1024 is invalid",
                                           "not a profile (no such file; a profile is a .json path)"])
        # After an unknown flag, the flag is what is named.
        line = self.refused("run", "--frob", "1024", words=["--frob", "unknown option"])
        self.assertNotIn("1024", line)
        # A path that does not exist is still a missing profile.
        self.refused("run", "nope.json", words=["nope.json", "does not exist"])
        self.refused("run", "some/dir/nope", words=["some/dir/nope"])
        # A file that exists is a profile whatever its name.
        with open(os.path.join(self.d, "smoke"), "w") as f:
            json.dump({"sweep": {"seq": 64, "cp": 1}}, f)
        p = run("run", "smoke", *SMALL, "--list", cwd=self.d)
        self.assertEqual(p.returncode, 0, p.stderr)

    # -- 2, 3. sizes and ranges ---------------------------------------------------------------------

    def test_nccl_tests_begin_end_factor_is_a_range(self):
        # The issue's exact input.
        self.assertEqual(self.list_seqs("-b", "1024", "-e", "4096", "-f", "2"), [1024, 2048, 4096])
        self.assertEqual(self.list_seqs("-b", "1k", "-e", "128k", "-f", "4"), [1024, 4096, 16384, 65536])
        self.assertEqual(self.list_seqs("--seq-begin", "2k"), [2048])  # -e defaults to -b
        self.assertEqual(self.list_seqs("-b", "1k", "-e", "4k"), [1024, 2048, 4096])  # -f defaults to 2
        self.refused("run", "-b", "4096", "-e", "1024", words=["-b/-e/-f", "ends (1024) before it begins (4096)"])
        self.refused("run", "-b", "1k", "-e", "4k", "-f", "1", words=["--seq-factor", "[2, "])
        self.refused("run", "-e", "4k", words=["--seq-end", "needs -b"])
        self.refused("run", "-b", "1k", "--seq", "2k", words=["--seq-begin", "not both"])
        self.refused("run", "-b", "0x10", words=["--seq-begin", "0x10", "whole number of tokens"])

    def test_a_range_from_begin_end_factor_runs(self):
        out = os.path.join(self.d, "out")
        p = run("run", "-b", "64", "-e", "128", "-f", "2", "--cp", "1", "--split", "contiguous", *SMALL,
                "--out", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = read_json(os.path.join(out, "results.json"))
        self.assertEqual(sorted(r["config"]["seq"] for r in doc["runs"]), [64, 128])

    def test_sizes_take_binary_suffixes(self):
        self.assertEqual(self.list_seqs("--seq", "4k"), [4096])
        self.assertEqual(self.list_seqs("--seq", "128k", "--cp", "1", "--split", "contiguous", *SMALL), [131072])
        self.assertEqual(self.list_seqs("--seq", "1M", "--cp", "1", "--split", "contiguous", *SMALL), [1048576])
        self.assertEqual(self.list_seqs("--seq", "1.5k,2K", "--cp", "1"), [1536, 2048])
        self.refused("run", "--seq", "64q", words=["--seq", "64q", "whole number of tokens"])
        self.refused("run", "--seq", "1.3k", words=["--seq", "1.3k", "whole number of tokens"])

    def test_ranges_expand_and_are_checked_like_a_list(self):
        self.assertEqual(self.list_seqs("--seq", "1k:8k:x2"), [1024, 2048, 4096, 8192])
        self.assertEqual(self.list_seqs("--seq", "1024:4096:+1024"), [1024, 2048, 3072, 4096])
        self.assertEqual(self.list_seqs("--seq", "512,1k:2k:x2,16k"), [512, 1024, 2048, 16384])
        # Each value expanded is checked as if listed: 1001 breaks zigzag's S % (2c) at c = 2.
        self.refused("run", "--seq", "1000:1002:+1", "--cp", "2", "--split", "zigzag", "--list",
                     words=["seq: value 1001 is invalid", "zigzag"])
        self.refused("run", "--seq", "8k:1k:x2", words=["--seq", "8k:1k:x2", "before it begins"])
        self.refused("run", "--seq", "1k:8k:x1", words=["--seq", "at least 2"])
        self.refused("run", "--seq", "1k:8k:+0", words=["--seq", "at least 1"])
        self.refused("run", "--seq", "1:100000:+1", words=["--seq", "100000 values; at most 4096"])
        self.refused("run", "--seq", "1k:8k", words=["--seq", "BEGIN:END:xFACTOR"])

    def test_a_profiles_seq_takes_sizes_and_ranges(self):
        profile = os.path.join(self.d, "p.json")
        with open(profile, "w") as f:
            json.dump({"sweep": {"seq": ["1k:4k:x2", "8k", 16384], "cp": 1}}, f)
        self.assertEqual(self.list_seqs(profile), [1024, 2048, 4096, 8192, 16384])
        with open(profile, "w") as f:
            json.dump({"sweep": {"seq": [64, "4k:1k:x2"]}}, f)
        self.refused("run", profile, words=["p.json: /sweep/seq/1", "4k:1k:x2", "before it begins"])

    # -- 4. --list ----------------------------------------------------------------------------------

    def test_list_runs_nothing(self):
        out = os.path.join(self.d, "never")
        before = folder_state(self.d)
        start = time.monotonic()
        p = run("run", "--seq", "1k:8k:x2", "--cp", "1,2,4", "--out", out, "--list", cwd=self.d)
        took = time.monotonic() - start
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertFalse(os.path.exists(out))
        self.assertEqual(folder_state(self.d), before)
        if not SANITIZED:
            self.assertLess(took, 5, "a listing plans, it does not measure")
        self.assertNotIn("results:", p.stdout)
        rows = listed(p.stdout)
        # 4 S x 3 c x 3 splits; at c = 1 the splits are one computation, run once.
        self.assertEqual(len(rows), 36)
        self.assertIn("36 configurations: 28 would run, 0 skipped, 8 recorded as the c = 1 run they repeat",
                      p.stdout)
        first = rows[0]
        self.assertEqual((first["S"], first["c"], first["split"], first["variant"], first["runs"]),
                         ("1024", "1", "contiguous", "ring", "yes"))
        self.assertEqual(first["id"], "s1024-c1-contiguous-ring-h8x2-d64-causal-float32-cpu-local")
        self.assertRegex(first["host_mem"], r"^\d+\.\d(KiB|MiB|GiB)$")
        self.assertEqual(rows[1]["runs"], "as#0")
        self.assertIn("host memory:", p.stdout)
        # --dry-run is the same listing.
        q = run("run", "--seq", "1k:8k:x2", "--cp", "1,2,4", "--out", out, "--dry-run", cwd=self.d)
        self.assertEqual(q.stdout.splitlines()[2:], p.stdout.splitlines()[2:])

    def test_list_names_what_would_be_skipped_and_why(self):
        p = run("run", "--seq", "100", "--cp", "1,3", "--split", "contiguous", "--skip-invalid", "--list",
                "--c1-all", cwd=self.d)
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = listed(p.stdout)
        self.assertEqual([r["runs"] for r in rows], ["yes", "skip"])
        self.assertEqual(rows[1]["host_mem"], "-")
        skipped = p.stdout.split("skipped:\n")[1]
        self.assertIn("#1 s100-c3-contiguous-ring", skipped)
        self.assertIn("S % c == 0", skipped)
        # The memory limit's skips, with the estimate, as the sweep would record them.
        p = run("run", "--seq", "64k", "--cp", "1", "--split", "contiguous", "--memory-limit", "0.01", "--list",
                cwd=self.d)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(listed(p.stdout)[0]["runs"], "skip")
        self.assertIn("of host memory", p.stdout)
        self.assertIn("(--memory-limit)", p.stdout)

    def test_list_with_bad_input_is_still_exit_2(self):
        out = os.path.join(self.d, "never")
        self.refused("run", "--seq", "100", "--cp", "3", "--split", "zigzag", "--out", out, "--list",
                     words=["seq: value 100 is invalid"])
        self.refused("run", "--seq", "4k", "--devices", "2", "--list", words=["--devices"])

    def test_list_explain_prints_each_ranks_step_program(self):
        # Every variant's program, every rank, forward and backward under each design.
        p = run("run", "--seq", "32", "--cp", "4", "--variant", "ring,allgather,ring-bidirectional,ulysses,hybrid",
                "--ulysses-degree", "2", "--heads", "4", "--kv-heads", "2", "--phase", "fwd+bwd",
                "--dkv", "reverse,follow", "--split", "zigzag", "--list", "--explain", cwd=self.d)
        self.assertEqual(p.returncode, 0, p.stderr)
        programs = re.split(r"\n#\d+ s\d+", p.stdout)[1:]
        # ring and ring-bidirectional under both designs, allgather and ulysses once, the hybrid twice.
        self.assertEqual(len(programs), 8, p.stdout[:2000])
        for prog in programs:
            self.assertEqual([int(x) for x in re.findall(r"^rank (\d+):", prog, re.M)], [0, 1, 2, 3])
        text = p.stdout
        for name in ["kv_recv", "kv_dkv_recv", "dkv_recv", "kv_allgather", "dkv_reduce_scatter", "qkv_alltoall",
                     "o_alltoall", "do_alltoall", "dqkv_alltoall", "attention_bwd", "grad_add", "delta", "merge"]:
            self.assertIn(name, text)
        # An op of another lane is named by its number, and the bytes of a message are the run's.
        self.assertRegex(text, r"waits #\d+")
        self.assertRegex(text, r"-> rank \d, .* <- rank \d, \d+ B, tag \d+")
        self.refused("run", "--seq", "32", "--explain", words=["--explain", "give --list --explain"])

    # -- 5. flags of another backend ----------------------------------------------------------------

    def test_cuda_flags_on_the_cpu_backend_are_refused(self):
        for argv, flag in [(["--devices", "2"], "--devices"), (["--rank-mode", "concurrent"], "--rank-mode"),
                           (["--launch", "eager"], "--launch"), (["--l2-flush"], "--l2-flush")]:
            with self.subTest(flag=flag):
                self.refused("run", "--seq", "64", *argv, words=[f"error: {flag}: value", "applies to the cuda backend"])
        # The profile's backend counts as the flag's does.
        profile = os.path.join(self.d, "cpu.json")
        with open(profile, "w") as f:
            json.dump({"sweep": {"seq": 64, "backend": "cpu"}}, f)
        self.refused("run", profile, "--devices", "2", words=["--devices", "cpu backend"])

    def test_harmless_flags_of_another_backend_are_warned_about(self):
        p = run("run", "--seq", "64", "--cp", "1", "--throttle-threshold", "50", "--list", cwd=self.d)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("ringbench: warning: --throttle-threshold: applies to the cuda backend", p.stderr)
        # The injected throttle fault reads them on the cpu backend: no warning then.
        p = run("run", "--seq", "64", "--cp", "1", "--throttle-recovery", "0", "--inject-fault", "throttle@0",
                "--list", cwd=self.d)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("warning", p.stderr)
        # --no-cupti asks for what the cpu backend does anyway: no word.
        p = run("run", "--seq", "64", "--cp", "1", "--no-cupti", "--list", cwd=self.d)
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        # --cpu-bind on cuda: a warning, whatever this machine's devices then say.
        p = run("run", "--seq", "64", "--cp", "1", "--backend", "cuda", "--dtype", "bfloat16", "--cpu-bind", "none",
                "--list", cwd=self.d)
        self.assertIn("ringbench: warning: --cpu-bind none: applies to the cpu backend", p.stderr)

    # -- 6. docs/nsight.md ----------------------------------------------------------------------------

    def test_the_nsight_command_of_the_docs_parses(self):
        with open(os.path.join(SOURCE_DIR, "docs", "nsight.md")) as f:
            text = f.read()
        command = re.search(r"^\s*(\S*bench/ringbench run [^\n]*)$", text, re.M).group(1)
        words = shlex.split(command)
        with open(os.path.join(SOURCE_DIR, "CMakePresets.json")) as f:
            presets = {p["name"] for p in json.load(f)["configurePresets"]}
        m = re.fullmatch(r"\./build/([\w-]+)/bench/ringbench", words[0])
        self.assertTrue(m and m.group(1) in presets, f"{words[0]}: not where a preset builds ringbench")
        args = [os.path.join(SOURCE_DIR, w) if w.startswith("profiles/") else w for w in words[1:]]
        for w in args:
            self.assertNotIn("<", w, "the command must run as shown")
        p = run(*args, "--list", cwd=self.d)
        # Without a GPU the one complaint may be the device; never the command line.
        if p.returncode != 0:
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertRegex(p.stderr, r"error: backend: value cuda is invalid: (no CUDA device|this build)")
        else:
            self.assertIn("bfloat16-cuda-local", p.stdout)


if __name__ == "__main__":
    unittest.main()
