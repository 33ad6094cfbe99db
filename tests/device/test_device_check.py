"""scripts/device-check.sh without a GPU: its --dry-run plan (every step in the order the contact
needs, accept-cudnn right after the gpu tests, each with its expected time and where the budget
ends; run.sh given the binary the check builds, the sanitizer steps initcheck included); issue 50's
rules on that plan: every step's own limit at least 1.5x its upper figure, the default budget 540 s
with accept-gpu-check inside it, peer-sdpa skipped where python3 cannot import a PyTorch with CUDA
(stand-in torch packages), a cuDNN built for another CUDA major refused in one line (stand-in wheel
layouts, readelf and nvcc); a run whose budget ends mid-way, against a stand-in cmake in a copy of
the script, reports the steps it stopped or never started as cut and exits 0; a run whose gpu tests
or build fail names the first failing test and its first error line in summary.txt, and so does
--summarize-log on sample ctest, LastTest.log, build and sanitizer logs; and how it picks MPI's
headers for the nccl transport (--mpi-args), against stand-in tools: a node with its own headers
configures as is; a node with Open MPI 4.1's runtime but no headers gets the headers .deps/ carries
and its own libmpi.so.40; another Open MPI series gets neither."""
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

SOURCE_DIR = os.path.abspath(os.environ.get("RINGBENCH_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")))
SCRIPT = os.path.join(SOURCE_DIR, "scripts", "device-check.sh")
LIB = os.path.join(SOURCE_DIR, "scripts", "device-check-lib.sh")
STEPS = ["configure", "build", "clock-samples", "gpu-tests", "accept-cudnn", "accept-gpu-check", "run-sh",
         "memcheck-kernels", "initcheck-kernels", "racecheck-kernels", "memcheck-executor", "micro-cuda", "peer-sdpa"]
# The steps the check runs come what may, in the order it runs them (the others depend on the node):
# the clock samples after the acceptances, so that accept-gpu-check fits the budget (issue 50).
ORDER = ["configure", "build", "gpu-tests", "accept-cudnn", "accept-gpu-check", "clock-samples"]
# A step's plan line: "NAME  LIMITs  expect LOW-HIGHs, by TOTALs  CMD" ("expect -" where no figure).
PLAN = re.compile(r"^(\S+) +(\d+)s  expect (?:(\d+)(?:-(\d+))?s, by (\d+)s|-)")


def tool(directory, name, body):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body + "\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)


def copy_script(tmp):
    """The script and the helpers it sources, in tmp/scripts."""
    os.makedirs(os.path.join(tmp, "scripts"), exist_ok=True)
    shutil.copy(SCRIPT, os.path.join(tmp, "scripts"))
    shutil.copy(LIB, os.path.join(tmp, "scripts"))
    return os.path.join(tmp, "scripts", "device-check.sh")


def dry_run(unset=(), **env):
    with tempfile.TemporaryDirectory(prefix="ringbench-test-") as tmp:
        out = os.path.join(tmp, "device-out")
        full = dict(os.environ, OUT=out, **env)
        for name in unset:
            full.pop(name, None)
        p = subprocess.run(["bash", SCRIPT, "--dry-run"], capture_output=True, text=True, timeout=120, env=full)
        assert not os.path.exists(out), "a dry run wrote its output folder"
    return p


def plan(stdout):
    """{step: (limit, low, high, by)} from a dry run's plan lines (low, high, by None without a figure)."""
    steps = {}
    for line in stdout.splitlines():
        m = PLAN.match(line)
        if m:
            low = m.group(3) and int(m.group(3))
            steps[m.group(1)] = (int(m.group(2)), low, m.group(4) and int(m.group(4)) or low,
                                 m.group(5) and int(m.group(5)))
    return steps


def fake_torch(site, body):
    """A stand-in torch package under site (PYTHONPATH=site puts it before any real one)."""
    os.makedirs(os.path.join(site, "torch"))
    with open(os.path.join(site, "torch", "__init__.py"), "w") as f:
        f.write(body)


class DryRun(unittest.TestCase):
    def test_prints_every_step_and_runs_nothing(self):
        p = dry_run()
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        for name in STEPS:
            self.assertTrue(any(line.startswith(name + " ") for line in lines), f"no {name} in:\n{p.stdout}")
        self.assertRegex(p.stdout, r"MPI headers: ")
        run_sh = next(line for line in lines if line.startswith("run-sh "))
        self.assertIn("RINGBENCH_BIN=", run_sh)
        initcheck = next(line for line in lines if line.startswith("initcheck-kernels "))
        self.assertRegex(initcheck, r"--tool initcheck|skipped \(")

    def test_the_cudnn_acceptance_follows_the_gpu_tests_inside_the_budget(self):
        p = dry_run(RINGBENCH_CHECK_BUDGET_S="460")
        self.assertEqual(p.returncode, 0, p.stderr)
        # Each step's plan line ("NAME  LIMITs  expect ..."), and the line where the budget ends.
        planned = [line.split()[0] for line in p.stdout.splitlines()
                   if PLAN.match(line) or line.startswith("budget-end ")]
        self.assertEqual([n for n in planned if n in ORDER], ORDER, p.stdout)
        # The issue's figures, added up: at their upper ends 460 s ends after accept-cudnn.
        self.assertEqual(planned.index("budget-end"), planned.index("accept-cudnn") + 1, p.stdout)
        cudnn = next(line for line in p.stdout.splitlines() if line.startswith("accept-cudnn ") and "expect" in line)
        self.assertIn("profiles/gpu-check-cudnn.json --kernel cudnn", cudnn)
        self.assertRegex(cudnn, r"expect 60-90s, by 380s")
        self.assertRegex(p.stdout, r"gpu-tests +225s +expect 120-150s, by 290s")
        self.assertIn("cudnn library:", p.stdout)  # gated on the library opening, not on the build's flag
        # 600 s would cover the clock samples too (it is no longer the default: see below).
        wide = dry_run(RINGBENCH_CHECK_BUDGET_S="600")
        self.assertNotIn("budget-end ", wide.stdout)
        self.assertIn("the 600s budget covers all of them", wide.stdout)


class Issue50Plan(unittest.TestCase):
    """Issue 50, item 4, on the dry run's plan."""

    def test_every_step_s_limit_is_at_least_one_and_a_half_times_its_upper_figure(self):
        p = dry_run()
        self.assertEqual(p.returncode, 0, p.stderr)
        steps = plan(p.stdout)
        figured = {name: v for name, v in steps.items() if v[2] is not None}
        # The steps with a figure are those of issue 40's table; each is held to the rule.
        self.assertEqual(set(figured), {"configure", "build", "clock-samples", "gpu-tests", "accept-cudnn",
                                        "accept-gpu-check"}, p.stdout)
        for name, (limit, _, high, _) in figured.items():
            self.assertGreaterEqual(limit, 1.5 * high, f"{name}: limit {limit}s under 1.5 x {high}s")

    def test_the_default_budget_is_540_s_and_accept_gpu_check_fits_in_it(self):
        p = dry_run(unset=["RINGBENCH_CHECK_BUDGET_S"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("budget 540s in all", p.stdout)
        lines = p.stdout.splitlines()
        names = [line.split()[0] for line in lines if PLAN.match(line) or line.startswith("budget-end ")]
        # The budget ends after accept-gpu-check at the upper figures, and its running total is in it.
        self.assertGreater(names.index("budget-end"), names.index("accept-gpu-check"), p.stdout)
        self.assertLessEqual(plan(p.stdout)["accept-gpu-check"][3], 540, p.stdout)
        self.assertRegex(p.stdout, r"accept-gpu-check +240s +expect 120-150s, by 530s")
        # The clock samples' idle and sweep come after it, and are what the budget ends before.
        self.assertRegex(p.stdout, r"budget-end .*\nidle-wait +expect 20s, by 550s")
        self.assertIn("the 540s budget covers the steps before idle-wait", p.stdout)


class PeerSdpa(unittest.TestCase):
    """peer-sdpa is skipped, not failed, where python3 cannot import a PyTorch with CUDA: decided
    before it runs (the probe's import), so the dry run shows it."""

    def dry(self, torch_body):
        with tempfile.TemporaryDirectory(prefix="ringbench-test-") as site:
            fake_torch(site, torch_body)
            return dry_run(PYTHONPATH=site)

    def peer_line(self, p):
        self.assertEqual(p.returncode, 0, p.stderr)
        return [line for line in p.stdout.splitlines() if line.startswith("peer-sdpa ")]

    def test_no_torch_skips_it(self):
        lines = self.peer_line(self.dry('raise ImportError("no torch on this node (stand-in)")\n'))
        self.assertEqual(len(lines), 1, lines)
        self.assertRegex(lines[0], r"^peer-sdpa +skipped \(no PyTorch: python3 cannot import torch: ImportError: "
                                   r"no torch on this node \(stand-in\)\)$")

    def test_torch_without_cuda_skips_it(self):
        lines = self.peer_line(self.dry(TORCH.format(cuda=None)))
        self.assertEqual(len(lines), 1, lines)
        self.assertRegex(lines[0], r"^peer-sdpa +skipped \(no PyTorch with CUDA: PyTorch 2\.9\.0\+stand-in\)$")

    def test_torch_with_cuda_runs_it(self):
        lines = self.peer_line(self.dry(TORCH.format(cuda='"13.0"')))
        self.assertEqual(len(lines), 1, lines)
        self.assertRegex(lines[0], r"^peer-sdpa +90s  expect - +python3 scripts/peer_sdpa\.py --out ")

    def test_peer_sdpa_py_says_skipped_with_status_4(self):
        with tempfile.TemporaryDirectory(prefix="ringbench-test-") as site:
            fake_torch(site, 'raise ImportError("no torch (stand-in)")\n')
            out = os.path.join(site, "peer.json")
            p = subprocess.run([sys.executable, os.path.join(SOURCE_DIR, "scripts", "peer_sdpa.py"), "--out", out],
                               capture_output=True, text=True, timeout=60, env=dict(os.environ, PYTHONPATH=site))
            with open(out) as f:
                doc = json.load(f)
        self.assertEqual(p.returncode, 4, p.stderr)
        self.assertIn("no PyTorch", doc["skipped"])
        self.assertRegex(p.stderr.splitlines()[-1], r"^peer_sdpa: skipped: no PyTorch: ")


# A stand-in torch with what the check's probe reads.
TORCH = """__version__ = "2.9.0+stand-in"
class version:
    cuda = {cuda}
class backends:
    class cudnn:
        @staticmethod
        def version():
            return 91900
"""


class CudnnCudaMajor(unittest.TestCase):
    """A cuDNN built for another CUDA major than the build's is refused in one line: the configure
    leaves cuDNN out and accept-cudnn is skipped with the reason. Stand-ins: a wheel layout on
    PYTHONPATH (nvidia/cudnn/lib/libcudnn.so.9, a tiny file), no loader's libcudnn (ldconfig), and
    the build's nvcc (RINGBENCH_CHECK_NVCC)."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ringbench-test-")
        self.bin = os.path.join(self.tmp, "bin")
        os.makedirs(self.bin)
        tool(self.bin, "ldconfig", "exit 0")
        self.site = os.path.join(self.tmp, "site")
        self.lib = os.path.join(self.site, "nvidia", "cudnn", "lib")
        os.makedirs(self.lib)
        open(os.path.join(self.site, "nvidia", "cudnn", "__init__.py"), "w").close()
        with open(os.path.join(self.lib, "libcudnn.so.9"), "w") as f:
            f.write("a stand-in for libcudnn.so.9\n")
        fake_torch(self.site, 'raise ImportError("no torch (stand-in)")\n')

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def nvcc(self, release):
        tool(self.bin, "nvcc", f'echo "Cuda compilation tools, release {release}, V{release}.88"')
        return os.path.join(self.bin, "nvcc")

    def dry(self, release):
        return dry_run(PATH=self.bin + os.pathsep + os.environ["PATH"], PYTHONPATH=self.site,
                       RINGBENCH_CHECK_NVCC=self.nvcc(release), CUDNN_PATH="", CUDNN_HOME="")

    def assert_refused(self, p, evidence):
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        cudnn = [line for line in lines if line.startswith("accept-cudnn")]
        # One line, the reason in it; the step itself is not planned.
        self.assertEqual(len(cudnn), 1, p.stdout)
        self.assertRegex(cudnn[0], r"^accept-cudnn +skipped \(cuDNN refused: \S+/nvidia/cudnn/lib/libcudnn\.so\.9 is "
                                   r"built for CUDA 12 \(" + re.escape(evidence) +
                                   r"\), the build's runtime is CUDA 13\)$")
        configure = next(line for line in lines if line.startswith("configure "))
        self.assertIn("-DRINGBENCH_ENABLE_CUDNN=OFF", configure)
        self.assertNotIn("-DRINGBENCH_CUDNN_LIBRARY=", configure)
        self.assertRegex(p.stdout, r"cuDNN library candidate: \S+libcudnn\.so\.9 \(.*\): refused: built for CUDA 12")

    def test_a_cu12_wheel_beside_cuda_13_is_refused(self):
        info = os.path.join(self.site, "nvidia_cudnn_cu12-9.1.0.70.dist-info")
        os.makedirs(info)
        with open(os.path.join(info, "RECORD"), "w") as f:
            f.write("nvidia/cudnn/__init__.py,,\nnvidia/cudnn/lib/libcudnn.so.9,sha256=x,29\n")
        self.assert_refused(self.dry("13.0"), "the wheel nvidia_cudnn_cu12-9.1.0.70")

    def test_a_library_that_names_cuda_12_s_cublas_is_refused(self):
        # cuDNN 9 links no CUDA library; its sub-libraries name the ones they open at run time.
        with open(os.path.join(self.lib, "libcudnn_adv.so.9"), "wb") as f:
            f.write(b"\x7fELF stand-in\x00libcublasLt.so.12\x00libnvrtc.so.12\x00")
        self.assert_refused(self.dry("13.0"), "libcublasLt.so.12 named by libcudnn_adv.so.9")

    def test_a_library_that_needs_cuda_12_s_runtime_is_refused(self):
        tool(self.bin, "readelf", 'echo " 0x0000000000000001 (NEEDED)             Shared library: [libcudart.so.12]"')
        self.assert_refused(self.dry("13.0"), "libcudart.so.12 named by libcudnn.so.9")

    def test_the_build_s_own_major_is_not_refused(self):
        with open(os.path.join(self.lib, "libcudnn_adv.so.9"), "wb") as f:
            f.write(b"\x00libcublasLt.so.12\x00")
        p = self.dry("12.8")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("refused", p.stdout)
        self.assertNotIn("-DRINGBENCH_ENABLE_CUDNN=OFF", p.stdout)
        self.assertRegex(p.stdout, r"cuDNN library candidate: \S+libcudnn\.so\.9 \(.*\), CUDA 12 \(libcublasLt\.so\.12")
        self.assertRegex(p.stdout, r"(?m)^accept-cudnn +150s  expect ")


class BudgetCut(unittest.TestCase):
    """A real run in a copy of the script whose budget (3 s) ends during the build: a stand-in cmake
    configures at once and builds for 30 s. The build is cut by the budget, every later step cut
    before it starts, nothing failed or timed out, and the check exits 0."""

    def test_a_step_the_budget_cuts_is_cut_not_failed(self):
        with tempfile.TemporaryDirectory(prefix="ringbench-test-") as tmp:
            copy_script(tmp)
            bin_dir = os.path.join(tmp, "bin")
            os.makedirs(bin_dir)
            tool(bin_dir, "cmake", 'case " $* " in *" --build "*) exec sleep 30 ;; esac\nexit 0')
            out = os.path.join(tmp, "out")
            env = dict(os.environ, OUT=out, PATH=bin_dir + os.pathsep + os.environ["PATH"],
                       RINGBENCH_CHECK_BUDGET_S="3", RINGBENCH_CHECK_MIN_STEP_S="1")
            p = subprocess.run(["bash", os.path.join(tmp, "scripts", "device-check.sh")], capture_output=True,
                               text=True, timeout=60, env=env)
            with open(os.path.join(out, "summary.txt")) as f:
                summary = f.read()
        self.assertEqual(p.returncode, 0, summary + p.stderr)
        status = {line.split()[0]: line.split(None, 1)[1] for line in summary.splitlines() if line.split()}
        self.assertRegex(status["configure"], r"^ok ")
        self.assertRegex(status["build"], r"^cut \(the 3s budget ended it after \d+s")
        for name in ["gpu-tests", "accept-cudnn", "accept-gpu-check", "clock-samples", "run-sh", "micro-cuda",
                     "peer-sdpa"]:
            self.assertRegex(status.get(name, ""), r"^cut \(the 3s budget left -?\d+s, under 1s\)", summary)
        self.assertNotIn("FAILED", summary)
        self.assertNotIn("TIMED OUT", summary)
        names = [line.split()[0] for line in summary.splitlines() if line.split()]
        self.assertEqual(names.index("accept-cudnn"), names.index("gpu-tests") + 1, summary)
        self.assertRegex(summary, r"cut by it: build gpu-tests accept-cudnn accept-gpu-check clock-samples")
        self.assertNotIn("exit 1", summary)


# A ctest log of the gpu tests as the gpu preset writes it (--output-on-failure): the second test
# fails with GoogleTest's output under its result line, the third too.
CTEST_LOG = """Test project /node/ringbench/build/default
      Start  1: KernelsCuda.AttentionMatchesTwinOnRandomSegments
 1/17 Test  #1: KernelsCuda.AttentionMatchesTwinOnRandomSegments ..........   Passed    1.23 sec
      Start  2: ExecutorCuda.EqualsReferenceAndEagerEqualsGraphForEveryCase
 2/17 Test  #2: ExecutorCuda.EqualsReferenceAndEagerEqualsGraphForEveryCase ...***Failed    0.52 sec
Running main() from /usr/src/googletest/googletest/src/gtest_main.cc
Note: Google Test filter = ExecutorCuda.EqualsReferenceAndEagerEqualsGraphForEveryCase
[==========] Running 1 test from 1 test suite.
[ RUN      ] ExecutorCuda.EqualsReferenceAndEagerEqualsGraphForEveryCase
unknown file: Failure
C++ exception with description "variant ulysses: the cuda backend runs ring and allgather" thrown in the test body.
[  FAILED  ] ExecutorCuda.EqualsReferenceAndEagerEqualsGraphForEveryCase (512 ms)
[  FAILED  ] 1 test, listed below:
[  FAILED  ] ExecutorCuda.EqualsReferenceAndEagerEqualsGraphForEveryCase

 1 FAILED TEST
      Start  3: CuptiTracer.TracesKernelMemcpyAndMemset
 3/17 Test  #3: CuptiTracer.TracesKernelMemcpyAndMemset ...***Failed    0.80 sec
/node/ringbench/tests/device/test_cupti_tracer.cpp:88: Failure
Expected: (markers) > (0), actual: 0 vs 0

88% tests passed, 2 tests failed out of 17

The following tests FAILED:
	  2 - ExecutorCuda.EqualsReferenceAndEagerEqualsGraphForEveryCase (Failed)
	  3 - CuptiTracer.TracesKernelMemcpyAndMemset (Failed)
Errors while running CTest
"""
FIRST_TEST = "first failing test: ExecutorCuda.EqualsReferenceAndEagerEqualsGraphForEveryCase (ctest: ***Failed)"
FIRST_ERROR = ('first error: unknown file: Failure: C++ exception with description "variant ulysses: the cuda '
               'backend runs ring and allgather" thrown in the test body.')


class FirstFailure(unittest.TestCase):
    """Issue 50, item 7: a failed step's first failing test and first error line."""

    def summarize(self, text, lasttest=None):
        with tempfile.TemporaryDirectory(prefix="ringbench-test-") as tmp:
            log = os.path.join(tmp, "step.log")
            with open(log, "w") as f:
                f.write(text)
            argv = ["bash", SCRIPT, "--summarize-log", log]
            if lasttest is not None:
                argv.append(os.path.join(tmp, "LastTest.log"))
                with open(argv[-1], "w") as f:
                    f.write(lasttest)
            p = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout.splitlines()

    def test_a_ctest_log_names_the_first_failing_test_and_its_first_error(self):
        self.assertEqual(self.summarize(CTEST_LOG), [FIRST_TEST, FIRST_ERROR])

    def test_a_test_without_output_is_looked_up_in_last_test_log(self):
        log = ("      Start  1: KernelsCuda.FoldMatchesTwin\n"
               " 1/2 Test  #1: KernelsCuda.FoldMatchesTwin ......***Exception: SegFault  0.12 sec\n"
               "      Start  2: KernelsCuda.MergeMatchesTwin\n"
               " 2/2 Test  #2: KernelsCuda.MergeMatchesTwin ......   Passed    0.30 sec\n")
        last = ("1/2 Testing: KernelsCuda.FoldMatchesTwin\n1/2 Test: KernelsCuda.FoldMatchesTwin\nOutput:\n"
                "----------------------------------------------------------\n[ RUN      ] KernelsCuda.FoldMatchesTwin\n"
                "/node/tests/device/test_kernels_cuda.cpp:40: Failure\nExpected: (err) <= (tol), actual: 0.5 vs 0.01\n"
                "<end of output>\n")
        self.assertEqual(self.summarize(log, last), [
            "first failing test: KernelsCuda.FoldMatchesTwin (ctest: ***Exception: SegFault)",
            "first error: /node/tests/device/test_kernels_cuda.cpp:40: Failure: Expected: (err) <= (tol), actual: "
            "0.5 vs 0.01 (LastTest.log)"])

    def test_ctest_stopped_by_the_step_s_limit_names_the_test_it_was_running(self):
        log = CTEST_LOG.split("      Start  2:")[0] + "      Start  2: ExecutorCuda.LinkModelPacesTransfers\n"
        self.assertEqual(self.summarize(log), ["running when stopped: ExecutorCuda.LinkModelPacesTransfers (ctest)"])

    def test_a_build_log_gives_the_compiler_s_error_not_ninja_s_failed_line(self):
        log = ("[12/40] Building CXX object ring/CMakeFiles/ring.dir/cuda/cuda_rank.cpp.o\n"
               "FAILED: ring/CMakeFiles/ring.dir/cuda/cuda_rank.cpp.o\n/usr/bin/c++ -Werror -c cuda_rank.cpp\n"
               "/node/ring/cuda/cuda_handles.hpp:145:10: error: too few arguments to function\n"
               "ninja: build stopped: subcommand failed.\n")
        self.assertEqual(self.summarize(log),
                         ["first error: /node/ring/cuda/cuda_handles.hpp:145:10: error: too few arguments to function"])

    def test_a_sanitizer_log_names_the_test_running_at_its_first_report(self):
        log = ("========= COMPUTE-SANITIZER\n[ RUN      ] KernelsCuda.AttentionMatchesTwinOnRandomSegments\n"
               "========= Invalid __global__ read of size 16 bytes\n=========     at attention_block_kernel+0x1a0\n"
               "[       OK ] KernelsCuda.AttentionMatchesTwinOnRandomSegments (100 ms)\n"
               "========= ERROR SUMMARY: 1 error\n")
        self.assertEqual(self.summarize(log), ["first failing test: KernelsCuda.AttentionMatchesTwinOnRandomSegments",
                                               "first error: Invalid __global__ read of size 16 bytes"])

    def test_a_failed_run_puts_them_in_summary_txt(self):
        """A run in a copy of the script: stand-in cmake (configures, builds) and ctest (the sample
        log, exit 8); no ringbench binary, so the later steps skip or fail after the gpu tests, and
        sleep is a stand-in so the clock samples' idle costs nothing."""
        with tempfile.TemporaryDirectory(prefix="ringbench-test-") as tmp:
            script = copy_script(tmp)
            bin_dir = os.path.join(tmp, "bin")
            os.makedirs(bin_dir)
            tool(bin_dir, "cmake", "exit 0")
            with open(os.path.join(tmp, "ctest.log"), "w") as f:
                f.write(CTEST_LOG)
            tool(bin_dir, "ctest", f'cat "{tmp}/ctest.log"; exit 8')
            tool(bin_dir, "sleep", "exit 0")
            out = os.path.join(tmp, "out")
            env = dict(os.environ, OUT=out, PATH=bin_dir + os.pathsep + os.environ["PATH"],
                       RINGBENCH_CHECK_BUDGET_S="60")
            p = subprocess.run(["bash", script], capture_output=True, text=True, timeout=120, env=env)
            with open(os.path.join(out, "summary.txt")) as f:
                summary = f.read()
        self.assertEqual(p.returncode, 1, summary + p.stderr)
        lines = summary.splitlines()
        at = next(i for i, line in enumerate(lines) if line.startswith("gpu-tests "))
        self.assertRegex(lines[at], r"^gpu-tests +FAILED \(rc 8\)")
        self.assertEqual(lines[at + 1:at + 3], ["  gpu-tests: " + FIRST_TEST, "  gpu-tests: " + FIRST_ERROR], summary)
        self.assertEqual(lines[-1],
                         "exit 1: first failure: gpu-tests: FAILED (rc 8); " + FIRST_TEST + "; " + FIRST_ERROR)

    def test_a_failed_build_ends_the_check_with_its_first_error(self):
        with tempfile.TemporaryDirectory(prefix="ringbench-test-") as tmp:
            script = copy_script(tmp)
            bin_dir = os.path.join(tmp, "bin")
            os.makedirs(bin_dir)
            tool(bin_dir, "cmake", 'case " $* " in *" --build "*) echo "FAILED: a.o"; '
                                   'echo "a.cpp:1:1: error: boom"; exit 1 ;; esac\nexit 0')
            out = os.path.join(tmp, "out")
            env = dict(os.environ, OUT=out, PATH=bin_dir + os.pathsep + os.environ["PATH"])
            p = subprocess.run(["bash", script], capture_output=True, text=True, timeout=60, env=env)
            with open(os.path.join(out, "summary.txt")) as f:
                summary = f.read()
        self.assertEqual(p.returncode, 1, summary + p.stderr)
        self.assertIn("  build: first error: a.cpp:1:1: error: boom\n", summary)
        self.assertEqual(summary.splitlines()[-1],
                         "exit 1: first failure: build: FAILED (rc 1); first error: a.cpp:1:1: error: boom")


class MpiHeaders(unittest.TestCase):
    """--mpi-args in a copy of the script, with stand-ins for mpirun, ldconfig and the compilers."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ringbench-test-")
        copy_script(self.tmp)
        self.bin = os.path.join(self.tmp, "bin")
        os.makedirs(self.bin)
        tool(self.bin, "ldconfig", 'echo "\tlibmpi.so.40 (libc6,x86-64) => /node/lib/libmpi.so.40"')

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def carry_headers(self, version="4.1.4"):
        inc = os.path.join(self.tmp, ".deps", "openmpi", "include")
        os.makedirs(inc)
        major, minor, release = version.split(".")
        with open(os.path.join(inc, "mpi.h"), "w") as f:
            f.write(f"#define OMPI_MAJOR_VERSION {major}\n#define OMPI_MINOR_VERSION {minor}\n"
                    f"#define OMPI_RELEASE_VERSION {release}\n")
        return inc

    def node(self, mpirun_version, headers):
        tool(self.bin, "mpirun", f'echo "mpirun (Open MPI) {mpirun_version}"')
        for w in ("mpicxx", "mpic++", "mpicc", "c++", "cc"):
            if headers:
                tool(self.bin, w, 'cat >/dev/null; echo \'# 1 "/node/include/mpi.h" 1\'')
            else:
                tool(self.bin, w, 'cat >/dev/null; echo "fatal error: mpi.h: No such file or directory" >&2; exit 1')

    def mpi_args(self):
        env = dict(os.environ, PATH=self.bin + os.pathsep + os.environ["PATH"])
        env.pop("RINGBENCH_MPI_HEADERS", None)
        p = subprocess.run(["bash", os.path.join(self.tmp, "scripts", "device-check.sh"), "--mpi-args"],
                           capture_output=True, text=True, timeout=60, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout.split(), p.stderr

    def test_the_node_s_own_headers_need_no_flags(self):
        self.carry_headers()
        self.node("4.1.6", headers=True)
        args, why = self.mpi_args()
        self.assertEqual(args, [])
        self.assertIn("the node's own: /node/include/mpi.h", why)

    def test_no_headers_takes_the_carried_ones_and_the_node_s_libmpi(self):
        inc = self.carry_headers()
        self.node("4.1.6", headers=False)
        args, why = self.mpi_args()
        self.assertIn(f"-DMPI_CXX_HEADER_DIR={inc}", args)
        self.assertIn("-DMPI_mpi_LIBRARY=/node/lib/libmpi.so.40", args)
        self.assertIn("-DMPI_CXX_LIB_NAMES=mpi", args)
        self.assertIn("-DMPI_CXX_SKIP_MPICXX=ON", args)
        self.assertIn("-DMPI_SKIP_COMPILER_WRAPPER=ON", args)
        self.assertIn("Open MPI 4.1.4's headers", why)

    def test_another_open_mpi_series_gets_no_carried_headers(self):
        self.carry_headers()
        self.node("5.0.3", headers=False)
        args, why = self.mpi_args()
        self.assertEqual(args, [])
        self.assertIn("none:", why)
        self.assertIn("5.0.3", why)

    def test_nothing_carried_says_so(self):
        self.node("4.1.6", headers=False)
        args, why = self.mpi_args()
        self.assertEqual(args, [])
        self.assertIn("device-deps.sh", why)


if __name__ == "__main__":
    unittest.main()
