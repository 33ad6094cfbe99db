"""scripts/check_alone.py over a scratch unity build: a file that compiles only inside its unity batch
(an earlier file lent it <string>) fails alone, naming it and the compiler's error; its fixed form and
its sibling pass; the flags are the unity source's own (a define only the target has reaches the
file); a file no build compiles is bad input (exit 2)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.environ["RINGBENCH_SOURCE_DIR"]
SCRIPT = os.path.join(SOURCE, "scripts", "check_alone.py")
CXX = os.environ.get("CXX", "c++")


class CheckAlone(unittest.TestCase):
    def scratch(self, d, b_text):
        src, build = os.path.join(d, "src"), os.path.join(d, "build")
        os.makedirs(os.path.join(build, "Unity"))
        os.makedirs(src)
        files = {"a.cpp": '#include <string>\nstd::string a() { return "a"; }\n', "b.cpp": b_text}
        for n, t in files.items():
            with open(os.path.join(src, n), "w") as f:
                f.write(t)
        unity = os.path.join(build, "Unity", "unity_0_cxx.cxx")
        with open(unity, "w") as f:
            for n in files:
                f.write(f'#include "{os.path.join(src, n)}"\n')
        argv = [CXX, "-std=c++20", "-DFROM_TARGET=1", "-o", "unity.o", "-c", unity]
        with open(os.path.join(build, "compile_commands.json"), "w") as f:
            json.dump([{"directory": build, "file": unity, "arguments": argv}], f)
        return src, build

    def check(self, build, *files):
        return subprocess.run([sys.executable, SCRIPT, build, *files], capture_output=True, text=True, timeout=120)

    def test_a_file_leaning_on_its_batch_fails_alone(self):
        with tempfile.TemporaryDirectory() as d:
            src, build = self.scratch(d, "static_assert(FROM_TARGET == 1);\nstd::string b() { return \"b\"; }\n")
            # Inside its batch it compiles: a.cpp included <string> first.
            unity = os.path.join(build, "Unity", "unity_0_cxx.cxx")
            self.assertEqual(subprocess.run([CXX, "-std=c++20", "-DFROM_TARGET=1", "-fsyntax-only", unity]).returncode, 0)
            p = self.check(build, os.path.join(src, "a.cpp"), os.path.join(src, "b.cpp"))
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn("b.cpp does not compile alone", p.stderr)
            self.assertNotIn("a.cpp does not compile", p.stderr)
            self.assertIn("b.cpp:2:", p.stderr)  # the line using std::string (GCC and clang word it apart)
            self.assertIn("1 of 2 files compile alone", p.stdout)

    def test_the_fixed_file_and_the_targets_flags_pass(self):
        with tempfile.TemporaryDirectory() as d:
            src, build = self.scratch(
                d, "#include <string>\nstatic_assert(FROM_TARGET == 1);\nstd::string b() { return \"b\"; }\n")
            p = self.check(build, "--all")
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("2 of 2 files compile alone (every file)", p.stdout)

    def test_a_file_no_build_compiles_is_bad_input(self):
        with tempfile.TemporaryDirectory() as d:
            src, build = self.scratch(d, "int b();\n")
            stray = os.path.join(src, "c.cpp")
            with open(stray, "w") as f:
                f.write("int c();\n")
            p = self.check(build, stray)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("c.cpp", p.stderr)


if __name__ == "__main__":
    unittest.main()
