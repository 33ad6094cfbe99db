"""scripts/check-format.sh, the test command's first stage: it checks the files git tracks and the
new ones it would add (CI's clean clone has them once committed), not the ignored ones, and names
each file that needs formatting. Run in a scratch repository with the project's .clang-format."""
import os
import shutil
import subprocess
import tempfile
import unittest

SOURCE = os.environ["RINGBENCH_SOURCE_DIR"]
GOOD = "int f(int a) { return a + 1; }\n"
BAD = "int   g( int a ){return a+1;}\n"


def clang_format():
    for name in ["clang-format", "clang-format-14", "clang-format-15", "clang-format-16", "clang-format-17"]:
        if shutil.which(name):
            return shutil.which(name)
    return None


@unittest.skipUnless(clang_format(), "no clang-format on this machine (the format stage installs it)")
class CheckFormat(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="ringbench_check_format_")
        os.makedirs(os.path.join(self.dir, "scripts"))
        shutil.copy(os.path.join(SOURCE, "scripts", "check-format.sh"), os.path.join(self.dir, "scripts"))
        shutil.copy(os.path.join(SOURCE, ".clang-format"), self.dir)
        self.git("init", "-q")
        self.write(".gitignore", "build/\n")
        self.write("tracked.cpp", GOOD)
        self.git("add", "tracked.cpp", ".gitignore")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def git(self, *args):
        subprocess.run(["git", *args], cwd=self.dir, check=True, capture_output=True)

    def write(self, name, text):
        os.makedirs(os.path.dirname(os.path.join(self.dir, name)), exist_ok=True)
        with open(os.path.join(self.dir, name), "w") as f:
            f.write(text)

    def check(self, *args):
        env = dict(os.environ, CLANG_FORMAT=clang_format())
        return subprocess.run(["bash", "scripts/check-format.sh", *args], cwd=self.dir, capture_output=True,
                              text=True, timeout=60, env=env)

    def test_a_new_file_not_yet_added_is_checked_and_named(self):
        self.write("src/new_file.cpp", BAD)
        p = self.check()
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("src/new_file.cpp", p.stdout)
        self.assertNotIn("tracked.cpp", p.stdout.split("need formatting")[1])
        fixed = self.check("--fix")
        self.assertEqual(fixed.returncode, 0, fixed.stderr)
        self.assertEqual(self.check().returncode, 0)

    def test_an_ignored_file_is_not_checked(self):
        self.write("build/generated.cpp", BAD)
        p = self.check()
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("1 files formatted", p.stdout)


if __name__ == "__main__":
    unittest.main()
