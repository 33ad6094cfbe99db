"""scripts/run.sh, the README's main command: where it runs, chosen from the GPUs it finds and what
the build can do, checked with --dry-run against stand-in binaries that report a build's features
(so the choices are tested in the CPU-only sanitizer build too); then one real run on the CPU path
with the already-built binary."""
import os
import stat
import subprocess
import tempfile
import unittest

from ringbench_test import BIN, SOURCE_DIR

SCRIPT = os.path.join(SOURCE_DIR, "scripts", "run.sh")


def run_script(*args, gpus=None, binary=BIN, timeout=600):
    env = dict(os.environ, RINGBENCH_BIN=binary)
    env.pop("RINGBENCH_PROFILE", None)
    if gpus is not None:
        env["RINGBENCH_GPUS"] = str(gpus)
    return subprocess.run(["bash", SCRIPT, *args], capture_output=True, text=True, env=env, timeout=timeout,
                          cwd=SOURCE_DIR)


def stand_in(directory, features):
    """A binary that answers --version as a build with `features` would."""
    path = os.path.join(directory, "ringbench")
    with open(path, "w") as f:
        f.write(f"#!/bin/sh\necho 'ringbench 0.1.0'\necho 'built with: {features}'\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
    return path


def has_mpirun():
    return subprocess.run(["sh", "-c", "command -v mpirun"], capture_output=True).returncode == 0


class RunScript(unittest.TestCase):
    def test_no_gpu_runs_the_smoke_profile_on_the_cpu(self):
        p = run_script("--dry-run", "out/x", gpus=0)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("no GPU: profiles/first-run.json", p.stderr)
        self.assertRegex(p.stderr, r"ringbench run profiles/first-run.json --out out/x")

    def test_one_gpu_runs_the_nightly_profile_on_the_local_transport(self):
        # The nightly profile says nccl; without a launcher that was exit 2 on the first H200.
        with tempfile.TemporaryDirectory() as d:
            p = run_script("--dry-run", "out/x", gpus=1, binary=stand_in(d, "cpu cuda mpi nccl"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("one GPU: profiles/nightly.json with the local transport", p.stderr)
        self.assertIn("run profiles/nightly.json --transport local --out out/x", p.stderr)
        self.assertNotIn("mpirun", p.stderr)

    @unittest.skipUnless(has_mpirun(), "needs mpirun")
    def test_several_gpus_launch_one_mpirun_per_c_that_fits(self):
        with tempfile.TemporaryDirectory() as d:
            p = run_script("--dry-run", "out/x", gpus=4, binary=stand_in(d, "cpu cuda mpi nccl"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("4 GPUs: profiles/nightly.json over NCCL, one mpirun per c", p.stderr)
        for c in (1, 2, 4):
            self.assertRegex(p.stderr, rf"mpirun -np {c} .*run profiles/nightly.json --transport nccl --cp {c} "
                                       rf"--out out/x/cp{c}")
        self.assertIn("c = 8 left out: more ranks than GPUs", p.stderr)
        self.assertNotIn("-np 8", p.stderr)

    def test_several_gpus_without_nccl_deal_the_ranks_over_them(self):
        with tempfile.TemporaryDirectory() as d:
            p = run_script("--dry-run", "out/x", gpus=2, binary=stand_in(d, "cpu cuda"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("--transport local --devices 2 --out out/x", p.stderr)
        self.assertIn("no nccl transport", p.stderr)

    def test_gpus_with_a_cpu_only_build_take_the_cpu_path(self):
        with tempfile.TemporaryDirectory() as d:
            p = run_script("--dry-run", gpus=8, binary=stand_in(d, "cpu mpi"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("8 GPU(s) found, but this build has no CUDA backend", p.stderr)
        self.assertIn("run profiles/first-run.json", p.stderr)

    def test_a_smaller_profile_can_be_passed(self):
        for args, env_profile in ((["--profile", "profiles/gpu-short.json"], None),
                                  ([], "profiles/gpu-short.json")):
            with tempfile.TemporaryDirectory() as d:
                env = dict(os.environ, RINGBENCH_BIN=stand_in(d, "cpu cuda"), RINGBENCH_GPUS="1")
                if env_profile:
                    env["RINGBENCH_PROFILE"] = env_profile
                p = subprocess.run(["bash", SCRIPT, "--dry-run", *args], capture_output=True, text=True, env=env,
                                   cwd=SOURCE_DIR)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("run profiles/gpu-short.json --transport local", p.stderr)

    def test_bad_arguments_exit_2(self):
        for args, gpus, says in ((["--profile", "no/such.json"], 0, "no such file"),
                                 (["--frobnicate"], 0, "unknown option"),
                                 ([], "two", "must be a whole number")):
            p = run_script("--dry-run", *args, gpus=gpus)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn(says, p.stderr)

    def test_the_cpu_path_runs_and_prints_where_the_report_is(self):
        with tempfile.TemporaryDirectory() as d:
            profile = os.path.join(d, "tiny.json")
            with open(profile, "w") as f:
                f.write('{"name": "tiny", "sweep": {"seq": [64], "cp": [2], "split": ["zigzag"], "heads": 2, '
                        '"kv_heads": 1, "head_dim": 8, "dtype": "float64", "repeats": 2}}')
            out = os.path.join(d, "out")
            p = run_script("--profile", profile, out, gpus=0)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertIn(f"report in {out}/report.html", p.stdout)
            self.assertTrue(os.path.exists(os.path.join(out, "report.html")))
            self.assertTrue(os.path.exists(os.path.join(out, "results.json")))


if __name__ == "__main__":
    unittest.main()
