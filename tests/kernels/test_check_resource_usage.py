"""check_resource_usage.py's parser and rules over saved cuobjdump dumps, so each rule is seen to fire.

data/resource_usage_sm90.txt: `cuobjdump --dump-resource-usage` (13.2.51) of libringbench_kernels_cuda.a
as nvcc 13.0.88 built it for sm_90 (paths shortened). data/resource_usage_spill.txt: the same tool on a
small kernel built with -maxrregcount=24, which ptxas made spill (1440 bytes stack frame, 1436 bytes
spill stores, 2912 bytes spill loads): the real shape of a spill in this format. Needs no GPU and no
cuobjdump.
"""

import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import check_resource_usage as cru  # noqa: E402

SCRIPT = os.path.join(HERE, "check_resource_usage.py")


def data(name):
    with open(os.path.join(HERE, "data", name), encoding="utf-8") as f:
        return f.read()


SAMPLE = data("resource_usage_sm90.txt")


def planted(text, kernel, field, value):
    """The dump with `field` of `kernel`'s figures set to `value` (the line after its Function line)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if "Function" in line and kernel in line:
            before = lines[i + 1]
            lines[i + 1] = re.sub(rf"\b{re.escape(field)}:\d+", f"{field}:{value}", before)
            assert lines[i + 1] != before, (kernel, field)
            return "\n".join(lines) + "\n"
    raise AssertionError(f"{kernel} not in the dump")


def by_kernel(records):
    return {cru.short(cru.demangle([r["name"]])[r["name"]]): r for r in records}


class Parse(unittest.TestCase):
    def test_every_kernel_of_the_library_with_its_figures(self):
        recs = by_kernel(cru.parse(SAMPLE))
        self.assertEqual(len(recs), 8, sorted(recs))
        d128 = [r for r in cru.parse(SAMPLE) if "attention_block_kernelILi128E" in r["name"]][0]
        self.assertEqual((d128["REG"], d128["STACK"], d128["LOCAL"], d128["SHARED"]), (218, 0, 0, 1024))
        self.assertEqual((d128["arch"], d128["member"]), ("sm_90", "attention_block.cu.o"))
        d64 = [r for r in cru.parse(SAMPLE) if "attention_block_kernelILi64E" in r["name"]][0]
        self.assertEqual(d64["REG"], 170)
        self.assertEqual(sum(r["REG"] for r in cru.parse(SAMPLE)), 218 + 170 + 40 + 40 + 27 + 32 + 12 + 10)

    def test_a_real_spill_reads_as_a_stack_frame(self):
        recs = cru.parse(data("resource_usage_spill.txt"))
        big = [r for r in recs if r["name"] == "_Z3bigPfPKf"][0]
        self.assertEqual((big["REG"], big["STACK"]), (24, 1440))

    def test_the_ptx_sections_and_the_common_block_are_not_functions(self):
        self.assertTrue(all(r["arch"] == "sm_90" and "REG" in r for r in cru.parse(SAMPLE)))
        self.assertEqual(cru.parse("Resource usage:\n Common:\n  GLOBAL:0\n"), [])


class RegisterBound(unittest.TestCase):
    def test_the_arithmetic(self):
        # 65,536 / 256 threads = 256 per thread, a multiple of 8, capped at 255.
        self.assertEqual(cru.register_bound(256), 255)
        # 65,536 / 512 = 128; / 384 = 170.67 -> 170 -> 168 (whole units of 8); / 1024 = 64.
        self.assertEqual(cru.register_bound(512), 128)
        self.assertEqual(cru.register_bound(384), 168)
        self.assertEqual(cru.register_bound(1024), 64)

    def test_one_cta_of_256_fits_at_the_bound_and_the_rounding_is_per_warp(self):
        self.assertLessEqual(256 * cru.round_up(255, 8), 65536)
        self.assertEqual(256 * cru.round_up(218, 8), 57344)  # the note's figure at D = 128


class Rules(unittest.TestCase):
    def test_the_library_as_built_passes(self):
        self.assertEqual(cru.violations(cru.parse(SAMPLE), 256), [])

    def test_a_planted_spill_fails_naming_the_kernel_and_its_stack(self):
        bad = cru.violations(cru.parse(planted(SAMPLE, "merge_partials_kernel", "STACK", 1440)), 256)
        self.assertEqual(len(bad), 1, bad)
        self.assertIn("merge_partials_kernel", bad[0])
        self.assertIn("STACK 1440", bad[0])

    def test_a_spill_in_the_attention_kernel_fails(self):
        bad = cru.violations(cru.parse(planted(SAMPLE, "attention_block_kernelILi128E", "STACK", 8)), 256)
        self.assertEqual(len(bad), 1, bad)
        self.assertIn("attention_block_kernel<128>", bad[0])

    def test_local_memory_fails(self):
        bad = cru.violations(cru.parse(planted(SAMPLE, "fold_piece_kernel", "LOCAL", 64)), 256)
        self.assertEqual(len(bad), 1, bad)
        self.assertIn("LOCAL 64", bad[0])

    def test_the_real_spill_fails(self):
        bad = cru.violations(cru.parse(data("resource_usage_spill.txt")), 256)
        self.assertTrue(any("big" in b and "STACK 1440" in b for b in bad), bad)

    def test_registers_over_the_bound_fail_with_the_arithmetic(self):
        # The same figures, for a CTA twice as large: 218 and 170 > 128.
        bad = cru.violations(cru.parse(SAMPLE), 512)
        self.assertEqual(len(bad), 2, bad)
        self.assertIn("218 registers > 128", bad[0])
        self.assertIn("512 x 224 = 114688 > 65536", bad[0])
        self.assertIn("attention_block_kernel<128>", bad[0])

    def test_the_most_registers_pass_at_256_threads(self):
        self.assertEqual(cru.violations(cru.parse(planted(SAMPLE, "attention_block_kernelILi128E", "REG", 255)), 256),
                         [])

    def test_a_dump_without_the_attention_kernel_fails(self):
        text = SAMPLE.replace("attention_block_kernelILi128E", "attention_kernelILi128E")
        bad = cru.violations(cru.parse(text), 256)
        self.assertEqual(len(bad), 1, bad)
        self.assertIn("attention_block_kernel<128> not in the dump", bad[0])

    def test_an_empty_dump_fails(self):
        self.assertEqual(len(cru.violations([], 256)), 1)


class Command(unittest.TestCase):
    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, check=False)

    def test_a_saved_dump_passes_and_prints_the_figures(self):
        r = self.run_script("--dump", os.path.join(HERE, "data", "resource_usage_sm90.txt"))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("attention_block_kernel<128>", r.stdout)
        self.assertIn("57344", r.stdout)

    def test_a_planted_spill_exits_1_with_the_kernel(self):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write(planted(SAMPLE, "stamped_copy_kernel", "STACK", 16))
        try:
            r = self.run_script("--dump", f.name)
        finally:
            os.unlink(f.name)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("FAIL: stamped_copy_kernel (sm_90, stamped_copy.cu.o): spills: STACK 16 bytes", r.stdout)

    def test_no_cuobjdump_is_a_skip_with_the_reason(self):
        for tool in ("", "RINGBENCH_CUOBJDUMP-NOTFOUND"):
            r = self.run_script("--cuobjdump", tool, "--library", "lib.a")
            self.assertEqual(r.returncode, cru.SKIP, r.stdout + r.stderr)
            self.assertIn("pypi-deps.sh cuobjdump", r.stdout)

    def test_a_failing_cuobjdump_fails(self):
        r = self.run_script("--cuobjdump", "/bin/false", "--library", "lib.a")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)


if __name__ == "__main__":
    unittest.main()
