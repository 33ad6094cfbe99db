"""scripts/peer_sdpa.py end to end without a GPU, against a stand-in torch package (PYTHONPATH) that
records every call and times each sample at a fixed 2 ms: both directions, both backends, the
figures and FLOPs of each record (a backward 2.5 times the forward's), the backward timing
torch.autograd.grad on one forward's graph with Q, K, V requiring gradients and nothing else, the
GQA fallback to expanded K/V where the backend refuses enable_gqa, and the defaults (forward only)
that scripts/device-check.sh relies on."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

SOURCE_DIR = os.path.abspath(os.environ.get("RINGBENCH_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")))
SCRIPT = os.path.join(SOURCE_DIR, "scripts", "peer_sdpa.py")

# The stand-in: tensors know their shape and whether they require gradients; every SDPA and grad
# call is logged to $PEER_LOG as one JSON line; a backend that refuses enable_gqa raises as PyTorch
# does when no kernel fits.
TORCH = r'''
import contextlib, json, os
__version__ = "2.11.0+stand-in"
bfloat16 = "bfloat16"
class version:
    cuda = "13.0"
def _log(**kw):
    with open(os.environ["PEER_LOG"], "a") as f:
        f.write(json.dumps(kw) + "\n")
class Tensor:
    def __init__(self, shape, grad=False, leaf=True):
        self.shape, self.requires_grad, self.leaf = tuple(shape), grad, leaf
    def __mul__(self, x): return Tensor(self.shape, self.requires_grad, False)
    def __sub__(self, x): return Tensor(self.shape, self.requires_grad, False)
    def detach(self): return Tensor(self.shape)
    def requires_grad_(self):
        self.requires_grad = True
        return self
    def repeat_interleave(self, rep, dim):
        s = list(self.shape); s[dim] *= rep
        return Tensor(s, self.requires_grad, False)
class Generator:
    def __init__(self, device=None): pass
    def manual_seed(self, n): return self
def rand(*shape, device=None, dtype=None, generator=None): return Tensor(shape)
def rand_like(t): return Tensor(t.shape)
class cuda:
    @staticmethod
    def is_available(): return True
    @staticmethod
    def get_device_name(i): return "Stand-in H200"
    @staticmethod
    def synchronize(): pass
    @staticmethod
    def empty_cache(): pass
    class Event:
        def __init__(self, enable_timing=False): pass
        def record(self): pass
        def synchronize(self): pass
        def elapsed_time(self, other): return 2.0
class backends:
    class cudnn:
        @staticmethod
        def version(): return 91400
class autograd:
    @staticmethod
    def grad(outputs, inputs, grad_outputs, retain_graph=False):
        _log(call="grad", inputs=[list(t.shape) for t in inputs], leaves=[t.leaf and t.requires_grad for t in inputs],
             retain_graph=retain_graph, out_grad=outputs.requires_grad)
        return tuple(Tensor(t.shape) for t in inputs)
'''
NN = ""
ATTENTION = r'''
import contextlib
import torch
class SDPBackend:
    FLASH_ATTENTION = "flash"
    CUDNN_ATTENTION = "cudnn"
current = []
@contextlib.contextmanager
def sdpa_kernel(which):
    current[:] = which
    yield
'''
FUNCTIONAL = r'''
import os
import torch
from torch.nn import attention
def scaled_dot_product_attention(q, k, v, is_causal=False, enable_gqa=False):
    backend = attention.current[0]
    if enable_gqa and backend in os.environ.get("PEER_NO_GQA", "").split(","):
        raise RuntimeError("No available kernel. Aborting execution.\nmore detail")
    torch._log(call="sdpa", backend=backend, q=list(q.shape), k=list(k.shape), gqa=enable_gqa, causal=is_causal,
               grad=[q.requires_grad, k.requires_grad, v.requires_grad])
    return torch.Tensor(q.shape, q.requires_grad or k.requires_grad, False)
'''


def stand_in(site):
    os.makedirs(os.path.join(site, "torch", "nn"))
    for path, body in (("torch/__init__.py", TORCH), ("torch/nn/__init__.py", NN),
                       ("torch/nn/attention.py", ATTENTION), ("torch/nn/functional.py", FUNCTIONAL)):
        with open(os.path.join(site, path), "w") as f:
            f.write(body)


class PeerSdpa(unittest.TestCase):
    def run_peer(self, *args, no_gqa=""):
        with tempfile.TemporaryDirectory(prefix="ringbench-test-") as site:
            stand_in(site)
            out, log = os.path.join(site, "peer.json"), os.path.join(site, "calls.jsonl")
            env = dict(os.environ, PYTHONPATH=site, PEER_LOG=log, PEER_NO_GQA=no_gqa)
            p = subprocess.run([sys.executable, SCRIPT, "--out", out, "--warmup", "1", "--iters", "3", *args],
                               capture_output=True, text=True, timeout=60, env=env)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(out) as f:
                doc = json.load(f)
            with open(log) as f:
                calls = [json.loads(line) for line in f]
        return p, doc, calls

    def test_the_default_times_the_forward_alone(self):
        _, doc, calls = self.run_peer("--seq", "1024", "--head-dim", "128")
        self.assertEqual([r["direction"] for r in doc["results"]], ["fwd", "fwd"])
        self.assertEqual({r["backend"] for r in doc["results"]}, {"flash", "cudnn"})
        self.assertFalse(any(c["call"] == "grad" for c in calls))
        r = doc["results"][0]
        flops = 4.0 * 128 * 16 * 1024 * 1025 // 2
        self.assertEqual((r["samples"], r["median_ms"], r["gqa"]), (3, 2.0, "native"))
        self.assertAlmostEqual(r["tflops_median"], flops / 2e-3 / 1e12)
        self.assertEqual(doc["device"], "Stand-in H200")

    def test_the_backward_times_autograd_on_one_forward_at_two_and_a_half_times_the_flops(self):
        p, doc, calls = self.run_peer("--seq", "2048", "--head-dim", "64", "--backends", "cudnn", "--direction",
                                      "fwd", "bwd")
        fwd, bwd = doc["results"]
        self.assertEqual((fwd["direction"], bwd["direction"]), ("fwd", "bwd"))
        self.assertAlmostEqual(bwd["tflops_median"], 2.5 * fwd["tflops_median"])
        self.assertIn("bwd: 2.5 times", doc["flops"])
        grads = [c for c in calls if c["call"] == "grad"]
        self.assertEqual(len(grads), 1 + 3, "one warm-up and three samples, each a backward")
        for g in grads:
            self.assertTrue(all(g["leaves"]), "Q, K, V must be leaves that require gradients")
            self.assertTrue(g["retain_graph"] and g["out_grad"])
            self.assertEqual(g["inputs"], [[1, 16, 2048, 64], [1, 2, 2048, 64], [1, 2, 2048, 64]])
        # One forward builds the backward's graph; the timed samples run no forward.
        backward_forwards = [c for c in calls if c["call"] == "sdpa" and c["grad"] == [True, True, True]]
        self.assertEqual(len(backward_forwards), 1)
        self.assertRegex(p.stdout, r"sdpa bwd cudnn S=  2048 D= 64 Hq=16 Hkv=2 causal: [0-9.]+ TFLOP/s \(native\)")

    def test_a_backend_refusing_gqa_runs_expanded(self):
        _, doc, calls = self.run_peer("--seq", "1024", "--head-dim", "128", "--backends", "flash", "--direction",
                                      "bwd", no_gqa="flash")
        (r,) = doc["results"]
        self.assertEqual(r["gqa"], "expanded")
        grads = [c for c in calls if c["call"] == "grad"]
        self.assertEqual(grads[0]["inputs"][1], [1, 16, 1024, 128], "K expanded to Hq heads before the graph")
        self.assertTrue(all(grads[0]["leaves"]))

    def test_an_unknown_direction_is_refused(self):
        with tempfile.TemporaryDirectory(prefix="ringbench-test-") as site:
            p = subprocess.run([sys.executable, SCRIPT, "--out", os.path.join(site, "x.json"), "--direction", "up"],
                               capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--direction", p.stderr)


if __name__ == "__main__":
    unittest.main()
