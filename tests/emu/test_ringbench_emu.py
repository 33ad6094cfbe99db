"""ringbench-emu, the command line with its cuda backend on the emulated device (docs/emulated-device.md):
every split and variant the backend runs, c up to 8, both kernels, graph and eager, both rank modes,
matches the float64 reference within the bf16 bound and dumps q, k, v, o.npy as the real backend does;
numpy, outside ringbench, agrees with the dumped O; results, console and report say the times are
emulated, and compare, accept and fleet refuse them in one line with exit 2."""
import glob
import json
import os
import subprocess
import tempfile
import unittest

import numpy as np

EMU = os.environ["RINGBENCH_EMU_BIN"]
SOURCE = os.environ["RINGBENCH_SOURCE_DIR"]

GRID = ["--seq", "96", "--cp", "1,2,3,4,8", "--split", "contiguous,zigzag,striped",
        "--variant", "ring,allgather,ring-bidirectional", "--heads", "4", "--kv-heads", "2", "--head-dim", "64",
        "--backend", "cuda", "--dtype", "bfloat16", "--repeats", "2", "--warmup", "1"]


def emu(*args, cwd=None, env=None):
    return subprocess.run([EMU, *map(str, args)], capture_output=True, text=True, timeout=600, cwd=cwd,
                          env=None if env is None else dict(os.environ, **env))


def bf16(x):
    """float64 to bfloat16 and back, round to nearest even (what the run stores)."""
    b = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    b = (b + 0x7FFF + ((b >> 16) & 1)) >> 16 << 16
    return b.astype(np.uint32).view(np.float32).astype(np.float64)


def attention(q, k, v):
    S, Hq, D = q.shape
    group = Hq // k.shape[1]
    kk, vv = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
    s = np.einsum("qhd,khd->hqk", q, kk) / np.sqrt(D)
    s = np.where(np.triu(np.ones((S, S), bool), 1)[None], -np.inf, s)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    return np.einsum("hqk,khd->qhd", p, vv)


class RingbenchEmu(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.runs = {}
        for kernel in ("ringbench", "cudnn"):
            for launch, mode in (("graph", "isolated"), ("eager", "concurrent")):
                out = os.path.join(cls.tmp.name, f"{kernel}-{launch}")
                p = emu("run", *GRID, "--kernel", kernel, "--launch", launch, "--rank-mode", mode, "--out", out,
                        "--dump", out + "-dump")
                cls.runs[(kernel, launch)] = (p, out)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def results(self, kernel, launch):
        p, out = self.runs[(kernel, launch)]
        self.assertEqual(p.returncode, 0, p.stderr[-3000:])
        with open(os.path.join(out, "results.json")) as f:
            return json.load(f)

    def test_every_configuration_matches_the_reference(self):
        for key in self.runs:
            with self.subTest(kernel=key[0], launch=key[1]):
                doc = self.results(*key)
                self.assertEqual(doc["tool"]["device"], "emulated")
                runs = doc["runs"]
                seen = {(r["config"]["cp"], r["config"]["split"], r["config"]["variant"]) for r in runs}
                # Every split and variant at c > 1; at c = 1 the others are aliases of the first.
                self.assertEqual(len(seen), 4 * 3 * 3 + 1 + 8)
                measured = [r for r in runs if "alias_of" not in r]
                self.assertEqual(len(measured), 4 * 3 * 3 + 1)
                for r in measured:
                    self.assertEqual(r["status"], "ok", r.get("reason"))
                    self.assertEqual(r["config"]["backend"], "cuda")
                    self.assertEqual(r["config"]["dtype"], "bfloat16")
                    self.assertTrue(r["correctness"]["passed"], r["config"]["id"])

    def test_dumped_output_agrees_with_numpy(self):
        for key in self.runs:
            with self.subTest(kernel=key[0], launch=key[1]):
                _, out = self.runs[key]
                dumps = glob.glob(os.path.join(out + "-dump", "s96-c8-zigzag-ring-h4x2-*"))
                self.assertEqual(len(dumps), 1, dumps)
                q, k, v, o = (np.load(os.path.join(dumps[0], n + ".npy")) for n in "qkvo")
                self.assertEqual(q.shape, (96, 4, 64))
                self.assertEqual(k.shape, (96, 2, 64))
                self.assertEqual(o.shape, (96, 4, 64))
                want = attention(bf16(q), bf16(k), bf16(v))
                # O is accumulated in fp32 and stored once in bf16 (cudnn pieces: each piece's O in
                # bf16, then folded): a few bf16 ulps of |O| <= 1.
                np.testing.assert_allclose(o, want, rtol=0, atol=2e-2)
                self.assertGreater(np.abs(o - want).max(), 0, "bit-equal to float64: the twin is not the one run")

    def test_console_and_report_say_emulated(self):
        p, out = self.runs[("ringbench", "graph")]
        self.assertIn("emulated device", p.stderr)
        self.assertIn("times are the host's", p.stderr.splitlines()[-1])
        with open(os.path.join(out, "report.html")) as f:
            self.assertIn('id="emulated"', f.read())

    def test_version_says_emulated(self):
        p = emu("--version")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("device: emulated", p.stdout)

    def test_a_malformed_device_setting_is_refused_before_anything_runs(self):
        for name, value in (("RINGBENCH_EMU_DEVICES", "abc"), ("RINGBENCH_EMU_DEVICES", "9"),
                            ("RINGBENCH_EMU_DEVICES", "0"), ("RINGBENCH_EMU_SEED", "-1"), ("RINGBENCH_EMU_SEED", "7x")):
            with self.subTest(name=name, value=value), tempfile.TemporaryDirectory() as d:
                out = os.path.join(d, "res")
                p = emu("run", *GRID, "--cp", "2", "--out", out, env={name: value})
                self.assertEqual(p.returncode, 2, p.stderr)
                lines = p.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, p.stderr)
                self.assertIn(name, lines[0])
                self.assertIn(value, lines[0])
                self.assertFalse(os.path.exists(out), "an output written before the refusal")

    def test_compare_accept_and_fleet_refuse_emulated_times(self):
        _, out = self.runs[("ringbench", "graph")]
        results = os.path.join(out, "results.json")
        profile = os.path.join(SOURCE, "profiles", "gpu-check.json")
        for args in (("compare", results, results), ("accept", profile, "--results", results),
                     ("fleet", results, results)):
            with self.subTest(command=args[0]):
                p = emu(*args, cwd=self.tmp.name)
                self.assertEqual(p.returncode, 2, p.stderr)
                lines = p.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, p.stderr)
                self.assertIn("/tool/device", lines[0])
                self.assertIn("emulated", lines[0])
                self.assertIn(args[0], lines[0])


if __name__ == "__main__":
    unittest.main()
