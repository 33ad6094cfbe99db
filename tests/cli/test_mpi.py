"""The mpi transport end to end: real `mpirun` launches of 2 and 4 processes on this machine
(oversubscribed; as root where CI runs as root). Outputs must equal the local transport's, a failing
or hanging rank must be recorded while the sweep goes on, and bad input on any rank must end every
rank with exit 2 and one error line from rank 0, never a hang."""
import os
import subprocess
import time
import unittest

import jsonschema
import numpy as np

from ringbench_test import BIN, SCHEMA, read_json, run, tempdir

MPIRUN = os.environ.get("RINGBENCH_MPIRUN", "mpirun")
TINY = ["--heads", "2", "--kv-heads", "1", "--head-dim", "8", "--repeats", "2", "--rounds", "1"]


def mpirun(np_, *args, shell=False, timeout=120):
    launcher = [MPIRUN, "--oversubscribe", "-np", str(np_)]
    if os.geteuid() == 0:
        launcher.append("--allow-run-as-root")
    cmd = [*launcher, "sh", "-c", args[0]] if shell else [*launcher, BIN, *map(str, args)]
    env = dict(os.environ, OMPI_MCA_btl_vader_single_copy_mechanism="none")
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)


def error_lines(stderr):
    return [l for l in stderr.splitlines() if l.startswith("ringbench")]


class MpiMatchesLocal(unittest.TestCase):
    def check_world(self, np_):
        sweep = ["--seq", "128", "--cp", str(np_), "--split", "contiguous,zigzag,striped", "--variant",
                 "ring,allgather,ring-bidirectional", "--dtype", "float64", "--heads", "4", "--kv-heads", "2", "--head-dim", "16",
                 "--repeats", "2", "--rounds", "1"]
        with tempdir() as d:
            m = mpirun(np_, "run", "--transport", "mpi", *sweep, "--out", f"{d}/mpi", "--dump", f"{d}/mpi/dump")
            self.assertEqual(m.returncode, 0, m.stderr[-3000:])
            loc = run("run", *sweep, "--out", f"{d}/local", "--dump", f"{d}/local/dump")
            self.assertEqual(loc.returncode, 0, loc.stderr)
            res = read_json(f"{d}/mpi/results.json")
            jsonschema.validate(res, read_json(SCHEMA))
            self.assertEqual(res["distributed"]["world_size"], np_)
            self.assertEqual(len(res["distributed"]["ranks"]), np_)
            self.assertEqual(len(res["runs"]), 9)
            for r in res["runs"]:
                self.assertEqual(r["status"], "ok", r["reason"])
                self.assertTrue(r["correctness"]["passed"])
                self.assertEqual(r["config"]["transport"], "mpi")
                # Each process names its own rank's device; rank 0 records all of them (2.5.0).
                self.assertEqual([p["rank"] for p in r["placement"]], list(range(np_)))
                self.assertTrue(all(p["device"].startswith("cpu") for p in r["placement"]), r["placement"])
                self.assertEqual([p["host"] for p in r["placement"]], [h["host"] for h in res["distributed"]["ranks"]])
                # Every rank's intervals reach rank 0's results, on one clock inside the pass window.
                tl = r["timeline"]
                self.assertEqual({iv["rank"] for iv in tl["intervals"]}, set(range(np_)))
                for iv in tl["intervals"]:
                    self.assertGreaterEqual(iv["begin_ms"], -0.01)
                    self.assertLessEqual(iv["end_ms"], tl["window_ms"] + 0.01)
            compared = 0
            for sub in os.listdir(f"{d}/mpi/dump"):
                twin = sub[: -len("-mpi")] + "-local"
                for t in ("q", "k", "v", "o"):
                    a = np.load(f"{d}/mpi/dump/{sub}/{t}.npy")
                    b = np.load(f"{d}/local/dump/{twin}/{t}.npy")
                    self.assertEqual(a.shape, b.shape)
                    # Same arithmetic in the same order on every rank: equal to float64 rounding.
                    np.testing.assert_allclose(a, b, rtol=0, atol=4 * np.finfo(np.float64).eps * np.abs(b).max())
                    compared += 1
            self.assertEqual(compared, 9 * 4)

    def test_two_processes(self):
        self.check_world(2)

    def test_four_processes(self):
        self.check_world(4)

    def test_the_backward_of_three_processes_gives_the_threaded_gradients(self):
        # docs/design.md §3a: both dK/dV designs and the gather's reduce-scatter, over MPI.
        sweep = ["--seq", "96", "--cp", "3", "--split", "zigzag", "--variant", "ring,allgather", "--dtype", "float64",
                 "--heads", "4", "--kv-heads", "2", "--head-dim", "8", "--phase", "fwd+bwd", "--dkv", "reverse,follow",
                 "--repeats", "2", "--rounds", "1"]
        with tempdir() as d:
            m = mpirun(3, "run", "--transport", "mpi", *sweep, "--out", f"{d}/mpi", "--dump", f"{d}/mpi/dump")
            self.assertEqual(m.returncode, 0, m.stderr[-3000:])
            loc = run("run", *sweep, "--out", f"{d}/local", "--dump", f"{d}/local/dump")
            self.assertEqual(loc.returncode, 0, loc.stderr)
            res = read_json(f"{d}/mpi/results.json")
            self.assertEqual(len(res["runs"]), 3)
            for r in res["runs"]:
                self.assertEqual(r["status"], "ok", r["reason"])
                self.assertTrue(r["correctness"]["gradients"]["passed"])
                self.assertEqual({iv["rank"] for iv in r["timeline"]["intervals"] if iv.get("phase") == 1}, {0, 1, 2})
            compared = 0
            for sub in os.listdir(f"{d}/mpi/dump"):
                twin = sub.replace("-mpi", "-local")
                for t in ("o", "do", "dq", "dk", "dv"):
                    a = np.load(f"{d}/mpi/dump/{sub}/{t}.npy")
                    b = np.load(f"{d}/local/dump/{twin}/{t}.npy")
                    self.assertEqual(a.shape, b.shape)
                    np.testing.assert_allclose(a, b, rtol=0, atol=4 * np.finfo(np.float64).eps * np.abs(b).max())
                    compared += 1
            self.assertEqual(compared, 3 * 5)

    def test_four_processes_exchange_heads(self):
        """Ulysses and the hybrid (U = 2: two groups of two) over MPI: the all-to-alls and the ring
        across the groups run on the pairwise exchange, and O, dQ, dK, dV equal the threaded run's."""
        sweep = ["--seq", "64", "--cp", "4", "--split", "zigzag", "--variant", "ulysses,hybrid",
                 "--ulysses-degree", "2", "--phase", "fwd+bwd", "--dkv", "reverse,follow", "--dtype", "float64",
                 "--heads", "4", "--kv-heads", "2", "--head-dim", "8", "--repeats", "1", "--rounds", "1"]
        with tempdir() as d:
            m = mpirun(4, "run", "--transport", "mpi", *sweep, "--out", f"{d}/mpi", "--dump", f"{d}/mpi/dump")
            self.assertEqual(m.returncode, 0, m.stderr[-3000:])
            loc = run("run", *sweep, "--out", f"{d}/local", "--dump", f"{d}/local/dump")
            self.assertEqual(loc.returncode, 0, loc.stderr)
            res = read_json(f"{d}/mpi/results.json")
            jsonschema.validate(res, read_json(SCHEMA))
            # ulysses: one design (nothing moves between its steps); hybrid: two.
            self.assertEqual(sorted((r["config"]["variant"], r["config"].get("dkv")) for r in res["runs"]),
                             sorted([("ulysses", None), ("hybrid", "reverse"), ("hybrid", "follow")]))
            for r in res["runs"]:
                self.assertEqual(r["status"], "ok", r["reason"])
                self.assertTrue(r["correctness"]["passed"])
                self.assertTrue(r["correctness"]["gradients"]["passed"])
                self.assertEqual(r["config"]["ulysses_degree"], 4 if r["config"]["variant"] == "ulysses" else 2)
                names = {iv["name"] for iv in r["timeline"]["intervals"]}
                self.assertTrue({"qkv_alltoall", "o_alltoall", "do_alltoall", "dqkv_alltoall"} <= names, names)
            compared = 0
            for sub in os.listdir(f"{d}/mpi/dump"):
                twin = sub.replace("-mpi", "-local", 1)
                for t in ("o", "do", "dq", "dk", "dv"):
                    a = np.load(f"{d}/mpi/dump/{sub}/{t}.npy")
                    b = np.load(f"{d}/local/dump/{twin}/{t}.npy")
                    self.assertEqual(a.shape, b.shape)
                    np.testing.assert_allclose(a, b, rtol=0, atol=4 * np.finfo(np.float64).eps * np.abs(b).max())
                    compared += 1
            self.assertEqual(compared, 3 * 5)



class MpiFailures(unittest.TestCase):
    def test_a_failing_rank_is_recorded_and_the_sweep_goes_on(self):
        with tempdir() as d:
            p = mpirun(2, "run", "--transport", "mpi", "--cp", "2", "--seq", "64", *TINY, "--split",
                       "zigzag,contiguous", "--inject-fault", "throw@0", "--out", d)
            self.assertEqual(p.returncode, 1, p.stderr[-3000:])
            runs = read_json(f"{d}/results.json")["runs"]
            self.assertEqual([r["status"] for r in runs], ["failed", "ok"])
            self.assertIn("rank 0", runs[0]["reason"])
            self.assertIn("injected fault", runs[0]["reason"])

    def test_a_hanging_rank_is_ended_by_the_watchdog(self):
        with tempdir() as d:
            t0 = time.time()
            p = mpirun(2, "run", "--transport", "mpi", "--cp", "2", "--seq", "64", *TINY, "--split",
                       "zigzag,contiguous", "--inject-fault", "hang@0", "--timeout", "2", "--out", d)
            self.assertLess(time.time() - t0, 60)
            self.assertEqual(p.returncode, 1, p.stderr[-3000:])
            runs = read_json(f"{d}/results.json")["runs"]
            self.assertEqual([r["status"] for r in runs], ["failed", "ok"])
            self.assertIn("timeout", runs[0]["reason"])


class MpiBadInput(unittest.TestCase):
    def expect_bad(self, p, *words):
        self.assertEqual(p.returncode, 2, p.stderr[-3000:])
        lines = error_lines(p.stderr)
        self.assertEqual(len(lines), 1, p.stderr[-3000:])  # rank 0 speaks for all
        self.assertTrue(lines[0].startswith("ringbench: error: "), lines[0])
        for w in words:
            self.assertIn(w, lines[0])

    def test_cp_not_the_world_size(self):
        with tempdir() as d:
            p = mpirun(2, "run", "--transport", "mpi", "--cp", "4", "--seq", "64", *TINY, "--out", f"{d}/o")
            self.expect_bad(p, "cp", "4", "2 MPI processes")
            self.assertFalse(os.path.exists(f"{d}/o"))

    def test_local_transport_under_mpirun(self):
        with tempdir() as d:
            p = mpirun(2, "run", "--cp", "2", "--seq", "64", *TINY, "--out", f"{d}/o")
            self.expect_bad(p, "transport", "local", "--transport mpi")
            self.assertFalse(os.path.exists(f"{d}/o"))

    def test_sweeps_that_differ_across_ranks(self):
        with tempdir() as d:
            cmd = (f"{BIN} run --transport mpi --cp 2 {' '.join(TINY)} --out {d}/o "
                   "--seq $((64 * (OMPI_COMM_WORLD_RANK + 1)))")
            p = mpirun(2, cmd, shell=True)
            self.expect_bad(p, "rank 1", "/profile/sweep/seq", "128", "rank 0 has 64")
            self.assertFalse(os.path.exists(f"{d}/o"))

    def test_a_parse_error_on_one_rank_only(self):
        with tempdir() as d:
            cmd = (f"{BIN} run --transport mpi --cp 2 --seq 64 {' '.join(TINY)} --out {d}/o "
                   "--split $([ $OMPI_COMM_WORLD_RANK = 1 ] && echo diagonal || echo zigzag)")
            p = mpirun(2, cmd, shell=True)
            self.expect_bad(p, "rank 1", "--split", "diagonal")
            self.assertFalse(os.path.exists(f"{d}/o"))

    def test_mpi_transport_without_a_launcher(self):
        with tempdir() as d:
            env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMI", "PMIX"))}
            p = subprocess.run([BIN, "run", "--transport", "mpi", "--cp", "2", "--seq", "64", *TINY, "--out",
                                f"{d}/o"], capture_output=True, text=True, timeout=60, env=env)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("mpirun -np 2", p.stderr)


if __name__ == "__main__":
    unittest.main()
