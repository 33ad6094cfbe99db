"""scripts/device-check.sh without a GPU: its --dry-run plan (every step in the order the contact
needs, accept-cudnn right after the gpu tests, each with its expected time and where the budget
ends; run.sh given the binary the check builds, the sanitizer steps initcheck included); a run whose
budget ends mid-way, against a stand-in cmake in a copy of the script, reports the steps it stopped
or never started as cut and exits 0; and how it picks MPI's headers for the nccl transport
(--mpi-args), against stand-in tools: a node with its own headers configures as is; a node with Open
MPI 4.1's runtime but no headers gets the headers .deps/ carries and its own libmpi.so.40; another
Open MPI series gets neither."""
import os
import re
import shutil
import stat
import subprocess
import tempfile
import unittest

SOURCE_DIR = os.path.abspath(os.environ.get("RINGBENCH_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")))
SCRIPT = os.path.join(SOURCE_DIR, "scripts", "device-check.sh")
STEPS = ["configure", "build", "clock-samples", "gpu-tests", "accept-cudnn", "accept-gpu-check", "run-sh",
         "memcheck-kernels", "initcheck-kernels", "racecheck-kernels", "memcheck-executor", "micro-cuda", "peer-sdpa"]
# The steps the check runs come what may, in the order it runs them (the others depend on the node).
ORDER = ["configure", "build", "clock-samples", "gpu-tests", "accept-cudnn", "accept-gpu-check"]


def tool(directory, name, body):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body + "\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)


def dry_run(**env):
    with tempfile.TemporaryDirectory(prefix="ringbench-test-") as tmp:
        out = os.path.join(tmp, "device-out")
        p = subprocess.run(["bash", SCRIPT, "--dry-run"], capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, OUT=out, **env))
        assert not os.path.exists(out), "a dry run wrote its output folder"
    return p


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
                   if re.match(r"\S+ +\d+s  expect ", line) or line.startswith("budget-end ")]
        self.assertEqual([n for n in planned if n in ORDER], ORDER, p.stdout)
        # The figures, added up: at their upper ends the budget ends after accept-cudnn.
        self.assertEqual(planned.index("budget-end"), planned.index("accept-cudnn") + 1, p.stdout)
        cudnn = next(line for line in p.stdout.splitlines() if line.startswith("accept-cudnn ") and "expect" in line)
        self.assertIn("profiles/gpu-check-cudnn.json --kernel cudnn", cudnn)
        self.assertRegex(cudnn, r"expect 60-90s, by 425s")
        self.assertRegex(p.stdout, r"gpu-tests +150s +expect 120-150s, by 335s")
        self.assertIn("cudnn library:", p.stdout)  # gated on the library opening, not on the build's flag
        # The first-contact budget the docs recommend covers accept-cudnn at its full limit.
        wide = dry_run(RINGBENCH_CHECK_BUDGET_S="600")
        self.assertNotIn("budget-end ", wide.stdout)
        self.assertIn("the 600s budget covers all of them", wide.stdout)


class BudgetCut(unittest.TestCase):
    """A real run in a copy of the script whose budget (3 s) ends during the build: a stand-in cmake
    configures at once and builds for 30 s. The build is cut by the budget, every later step cut
    before it starts, nothing failed or timed out, and the check exits 0."""

    def test_a_step_the_budget_cuts_is_cut_not_failed(self):
        with tempfile.TemporaryDirectory(prefix="ringbench-test-") as tmp:
            os.makedirs(os.path.join(tmp, "scripts"))
            shutil.copy(SCRIPT, os.path.join(tmp, "scripts"))
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
        for name in ["clock-samples", "gpu-tests", "accept-cudnn", "accept-gpu-check", "run-sh", "micro-cuda",
                     "peer-sdpa"]:
            self.assertRegex(status.get(name, ""), r"^cut \(the 3s budget left -?\d+s, under 1s\)", summary)
        self.assertNotIn("FAILED", summary)
        self.assertNotIn("TIMED OUT", summary)
        names = [line.split()[0] for line in summary.splitlines() if line.split()]
        self.assertEqual(names.index("accept-cudnn"), names.index("gpu-tests") + 1, summary)
        self.assertRegex(summary, r"cut by it: build clock-samples gpu-tests accept-cudnn accept-gpu-check")


class MpiHeaders(unittest.TestCase):
    """--mpi-args in a copy of the script, with stand-ins for mpirun, ldconfig and the compilers."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ringbench-test-")
        os.makedirs(os.path.join(self.tmp, "scripts"))
        shutil.copy(SCRIPT, os.path.join(self.tmp, "scripts"))
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
