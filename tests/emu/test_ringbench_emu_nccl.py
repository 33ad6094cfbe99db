"""The nccl transport on the emulated device (emu/nccl/emu_nccl.cpp): real `mpirun` launches of 2 and 4
ringbench-emu processes, one rank each (oversubscribed; as root where CI runs as root), the bytes of
ncclSend/ncclRecv and ncclAllGather carried by MPI. Every configuration matches the float64 reference,
in graph replay and eagerly, and the dumped outputs equal the local transport's bit for bit: the same
twins ran on the same bytes, only the transport differs."""
import glob
import json
import os
import subprocess
import tempfile
import unittest

import numpy as np

EMU = os.environ["RINGBENCH_EMU_BIN"]
MPIRUN = os.environ.get("RINGBENCH_MPIRUN", "mpirun")
SWEEP = ["--backend", "cuda", "--dtype", "bfloat16", "--seq", "96", "--split", "contiguous,zigzag,striped",
         "--variant", "ring,allgather,ring-bidirectional", "--heads", "4", "--kv-heads", "2", "--head-dim", "64",
         "--repeats", "2", "--warmup", "1"]


def mpirun(np_, *args):
    launcher = [MPIRUN, "--oversubscribe", "-np", str(np_), "-x", "RINGBENCH_EMU_DEVICES"]
    if os.geteuid() == 0:
        launcher.append("--allow-run-as-root")
    # Each process sees as many emulated devices as the job has ranks: one GPU per rank, as NCCL needs.
    env = dict(os.environ, RINGBENCH_EMU_DEVICES=str(np_))
    return subprocess.run(launcher + [EMU, *map(str, args)], capture_output=True, text=True, timeout=300, env=env)


def outputs(dump):
    return {os.path.basename(d).replace("-nccl", "-local"): np.load(os.path.join(d, "o.npy"))
            for d in glob.glob(os.path.join(dump, "*"))}


class EmulatedNccl(unittest.TestCase):
    def test_two_and_four_ranks_match_the_reference_and_the_local_transport(self):
        for np_ in (2, 4):
            for launch in ("graph", "eager"):
                with self.subTest(ranks=np_, launch=launch), tempfile.TemporaryDirectory() as d:
                    m = mpirun(np_, "run", "--transport", "nccl", "--cp", np_, "--launch", launch, *SWEEP,
                               "--out", f"{d}/nccl", "--dump", f"{d}/nccl/dump")
                    self.assertEqual(m.returncode, 0, m.stderr[-3000:])
                    with open(f"{d}/nccl/results.json") as f:
                        doc = json.load(f)
                    self.assertEqual(doc["tool"]["device"], "emulated")
                    self.assertEqual(len(doc["runs"]), 9)
                    for r in doc["runs"]:
                        self.assertEqual(r["status"], "ok", r.get("reason"))
                        self.assertEqual(r["config"]["transport"], "nccl")
                        self.assertTrue(r["correctness"]["passed"], r["config"]["id"])
                    local = subprocess.run([EMU, "run", "--cp", str(np_), "--launch", launch, *SWEEP, "--out", f"{d}/local",
                                            "--dump", f"{d}/local/dump"], capture_output=True, text=True, timeout=300)
                    self.assertEqual(local.returncode, 0, local.stderr[-3000:])
                    got, want = outputs(f"{d}/nccl/dump"), outputs(f"{d}/local/dump")
                    self.assertEqual(sorted(got), sorted(want))
                    for name in want:
                        np.testing.assert_array_equal(got[name], want[name], err_msg=name)


if __name__ == "__main__":
    unittest.main()
