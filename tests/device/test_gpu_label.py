"""The `gpu` label's tests run one at a time. gtest_discover_tests makes every GoogleTest case a ctest
test of its own, a process with its own CUDA context, and the test presets run two tests at once:
two contexts time-slicing one GPU fail the stamped copy's bandwidth and window assertions for no
fault of the code. So every test labelled `gpu` must be RUN_SERIAL or hold a RESOURCE_LOCK.

Read from `ctest --show-only=json-v1` in the build tree, as ctest itself will schedule the tests
(the discovered cases' properties are written at build time, so a build without CUDA, or whose test
binaries did not list their cases, has none to check and says why)."""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

BUILD_DIR = os.environ.get("RINGBENCH_BUILD_DIR", "")
CTEST = os.environ.get("RINGBENCH_CTEST", "ctest")
HAVE_CUDA = os.environ.get("RINGBENCH_HAVE_CUDA", "").upper() in ("ON", "1", "TRUE", "YES")


def property_of(test, name):
    for p in test.get("properties", []):
        if p.get("name") == name:
            return p.get("value")
    return None


def listed_tests():
    """ctest's list of the build's tests. Even --show-only writes Testing/Temporary/LastTest.log in the
    tree it reads, renamed over the log of the ctest run that runs this test; so it reads a copy of
    the tree's CTestTestfile.cmake files (they include the discovered cases by absolute path)."""
    with tempfile.TemporaryDirectory(prefix="ringbench-ctest-") as tree:
        for d, subdirs, files in os.walk(BUILD_DIR):
            subdirs[:] = [s for s in subdirs if s not in ("CMakeFiles", "Testing")]
            if "CTestTestfile.cmake" in files:
                copy = os.path.join(tree, os.path.relpath(d, BUILD_DIR))
                os.makedirs(copy, exist_ok=True)
                shutil.copy(os.path.join(d, "CTestTestfile.cmake"), copy)
        p = subprocess.run([CTEST, "--show-only=json-v1"], cwd=tree, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise AssertionError(f"ctest --show-only=json-v1 failed ({p.returncode}): {p.stderr[-2000:]}")
    return json.loads(p.stdout)["tests"]


def gpu_tests(tests):
    return [t for t in tests if "gpu" in (property_of(t, "LABELS") or [])]


class GpuLabel(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not BUILD_DIR:
            raise unittest.SkipTest("RINGBENCH_BUILD_DIR is not set (ctest sets it)")
        cls.tests = listed_tests()

    def test_every_gpu_test_runs_alone(self):
        shared = [t["name"] for t in gpu_tests(self.tests)
                  if not property_of(t, "RUN_SERIAL") and not property_of(t, "RESOURCE_LOCK")]
        self.assertEqual(shared, [], "tests labelled gpu without RUN_SERIAL or a RESOURCE_LOCK: ctest may run "
                                     "them beside each other on one GPU")

    def test_a_cuda_build_has_gpu_tests(self):
        # Without it the check above would pass on a build whose gpu tests were never discovered.
        if not HAVE_CUDA:
            self.skipTest("this build has no CUDA backend (RINGBENCH_HAVE_CUDA off): it declares no gpu tests")
        not_built = [t["name"] for t in self.tests if t["name"].endswith("_NOT_BUILT")]
        self.assertTrue(gpu_tests(self.tests), "a CUDA build lists no test labelled gpu"
                        + (f" (not built: {', '.join(not_built)})" if not_built else ""))


if __name__ == "__main__":
    unittest.main()
