"""`run --dump` writes Q, K, V (before rounding) and O in global token order as .npy; numpy, outside
ringbench, recomputes attention from them and agrees with O."""
import glob
import os
import unittest

import numpy as np

from ringbench_test import run, tempdir


def attention(q, k, v, causal):
    S, Hq, D = q.shape
    group = Hq // k.shape[1]
    kk = np.repeat(k, group, axis=1)
    vv = np.repeat(v, group, axis=1)
    s = np.einsum("qhd,khd->hqk", q, kk) / np.sqrt(D)
    if causal:
        s = np.where(np.triu(np.ones((S, S), bool), 1)[None], -np.inf, s)
    s = s - s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    p /= p.sum(axis=-1, keepdims=True)
    return np.einsum("hqk,khd->qhd", p, vv)


class DumpNpy(unittest.TestCase):
    def run_dump(self, dtype, split, cp):
        with tempdir() as d:
            dump = os.path.join(d, "dump")
            p = run("run", "--seq", "120", "--cp", cp, "--split", split, "--heads", "4", "--kv-heads", "2",
                    "--head-dim", "16", "--dtype", dtype, "--repeats", "1", "--out", os.path.join(d, "res"),
                    "--dump", dump)
            self.assertEqual(p.returncode, 0, p.stderr)
            (sub,) = glob.glob(os.path.join(dump, "*"))
            q, k, v, o = (np.load(os.path.join(sub, n + ".npy")) for n in "qkvo")
            self.assertEqual(q.shape, (120, 4, 16))
            self.assertEqual(k.shape, (120, 2, 16))
            self.assertEqual(v.shape, (120, 2, 16))
            self.assertEqual(o.shape, (120, 4, 16))
            self.assertEqual(q.dtype, np.float64)
            self.assertEqual(o.dtype, np.float64 if dtype == "float64" else np.float32)
            return q, k, v, o

    def test_float64_matches_numpy(self):
        q, k, v, o = self.run_dump("float64", "zigzag", "3")
        np.testing.assert_allclose(o, attention(q, k, v, True), rtol=0, atol=1e-12)

    def test_float32_matches_numpy_on_rounded_inputs(self):
        q, k, v, o = self.run_dump("float32", "striped", "4")
        r = lambda x: x.astype(np.float32).astype(np.float64)  # the run stores float32 inputs
        np.testing.assert_allclose(o, attention(r(q), r(k), r(v), True), rtol=0, atol=2e-6)
        # Inputs are dumped before rounding: they carry more than float32's 24 bits.
        self.assertFalse(np.array_equal(q, r(q)))


if __name__ == "__main__":
    unittest.main()
