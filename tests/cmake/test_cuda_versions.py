"""cmake/RingbenchCudaVersions.cmake, run as a script without a toolkit: a CUDA older than 13, or a
CUPTI older than 13's API, configures without it and the summary says why (issue 50), instead of a
build that fails halfway (CUDA 12's capture-query signatures, CUPTI 12's record layouts)."""
import os
import subprocess
import tempfile
import unittest

CMAKE = os.environ.get("CMAKE_COMMAND", "cmake")
SCRIPT = os.path.join(os.environ["RINGBENCH_SOURCE_DIR"], "cmake", "RingbenchCudaVersions.cmake")


def gate(**defs):
    args = [CMAKE] + [f"-D{k}={v}" for k, v in defs.items()] + ["-P", SCRIPT]
    p = subprocess.run(args, capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        raise AssertionError(p.stderr)
    return p.stderr.strip()  # message() without a mode writes to stderr


class CudaVersions(unittest.TestCase):
    def test_cuda_13_and_newer_build_the_backend(self):
        self.assertEqual(gate(CUDA_VERSION="13.0.88"), "CUDA=ON (13.0.88)")
        self.assertEqual(gate(CUDA_VERSION="13.2.51"), "CUDA=ON (13.2.51)")

    def test_cuda_12_is_refused_with_its_reason(self):
        out = gate(CUDA_VERSION="12.9.86")
        self.assertTrue(out.startswith("CUDA=OFF (CUDA 12.9.86 at "), out)
        self.assertIn("needs CUDA 13", out)

    def cupti(self, text):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "cupti_version.h")
            with open(path, "w") as f:
                f.write(text)
            return gate(CUPTI_HEADER=path)

    def test_cupti_13_is_taken(self):
        self.assertEqual(self.cupti("#define CUPTI_API_VERSION 130001\n"), "CUPTI=ON (130001)")

    def test_older_or_unknown_cupti_is_refused_with_its_reason(self):
        old = self.cupti("/* CUDA 12.6 */\n#define CUPTI_API_VERSION 24\n")
        self.assertTrue(old.startswith("CUPTI=OFF (CUPTI API version 24 at "), old)
        self.assertIn("needs 130000", old)
        self.assertIn("no CUPTI_API_VERSION", self.cupti("#define SOMETHING_ELSE 1\n"))
        self.assertIn("no CUPTI_API_VERSION", gate(CUPTI_HEADER="/nonexistent/cupti_version.h"))

    def test_this_machines_header_when_present(self):
        header = "/usr/local/cuda/include/cupti_version.h"
        if not os.path.exists(header):
            self.skipTest(f"no {header}")
        self.assertTrue(gate(CUPTI_HEADER=header).startswith("CUPTI=ON (13"))


if __name__ == "__main__":
    unittest.main()
