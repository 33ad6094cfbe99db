"""scripts/device-check.sh without a GPU: its --dry-run plan (every step, run.sh given the binary the
check builds, the sanitizer steps initcheck included) and how it picks MPI's headers for the nccl
transport (--mpi-args), against stand-in tools in a copy of the script: a node with its own headers
configures as is; a node with Open MPI 4.1's runtime but no headers gets the headers .deps/ carries
and its own libmpi.so.40; another Open MPI series gets neither."""
import os
import shutil
import stat
import subprocess
import tempfile
import unittest

SOURCE_DIR = os.path.abspath(os.environ.get("RINGBENCH_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")))
SCRIPT = os.path.join(SOURCE_DIR, "scripts", "device-check.sh")
STEPS = ["configure", "build", "clock-samples", "gpu-tests", "accept-gpu-check", "run-sh", "memcheck-kernels",
         "initcheck-kernels", "racecheck-kernels", "memcheck-executor", "micro-cuda", "peer-sdpa"]


def tool(directory, name, body):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body + "\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)


class DryRun(unittest.TestCase):
    def test_prints_every_step_and_runs_nothing(self):
        with tempfile.TemporaryDirectory(prefix="ringbench-test-") as tmp:
            out = os.path.join(tmp, "device-out")
            p = subprocess.run(["bash", SCRIPT, "--dry-run"], capture_output=True, text=True, timeout=120,
                               env=dict(os.environ, OUT=out))
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertFalse(os.path.exists(out), "a dry run wrote its output folder")
        lines = p.stdout.splitlines()
        for name in STEPS:
            self.assertTrue(any(line.startswith(name + " ") for line in lines), f"no {name} in:\n{p.stdout}")
        self.assertRegex(p.stdout, r"MPI headers: ")
        run_sh = next(line for line in lines if line.startswith("run-sh "))
        self.assertIn("RINGBENCH_BIN=", run_sh)
        initcheck = next(line for line in lines if line.startswith("initcheck-kernels "))
        self.assertRegex(initcheck, r"--tool initcheck|skipped \(")


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
