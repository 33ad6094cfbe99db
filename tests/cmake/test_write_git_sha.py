"""cmake/write_git_sha.cmake, which every build runs: it names the commit checked out now, moves with
every commit without a reconfigure (the sha taken at configure time did not), says "unknown"
outside git, and leaves its file untouched when the commit did not change, so that a build at the
same commit recompiles nothing."""
import os
import re
import subprocess
import tempfile
import unittest

CMAKE = os.environ.get("CMAKE_COMMAND", "cmake")
SCRIPT = os.path.join(os.environ["RINGBENCH_SOURCE_DIR"], "cmake", "write_git_sha.cmake")


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, text=True,
                          env=dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
                                   GIT_COMMITTER_EMAIL="t@t")).stdout.strip()


def commit(repo, text):
    with open(os.path.join(repo, "f.txt"), "w") as f:
        f.write(text)
    git(repo, "add", "f.txt")
    git(repo, "commit", "-q", "-m", text)
    return git(repo, "rev-parse", "--short=12", "HEAD")


def write_sha(source, output, env=None):
    p = subprocess.run([CMAKE, f"-DSOURCE_DIR={source}", f"-DOUTPUT={output}", "-P", SCRIPT], capture_output=True,
                       text=True, env=env)
    if p.returncode != 0:
        raise AssertionError(p.stdout + p.stderr)
    with open(output) as f:
        text = f.read()
    m = re.search(r'tool_git_sha\(\) \{ return "([^"]*)"; \}', text)
    if not m:
        raise AssertionError(text)
    return m.group(1)


class WriteGitSha(unittest.TestCase):
    def test_the_sha_follows_each_commit_and_the_file_is_left_alone_between(self):
        with tempfile.TemporaryDirectory() as d:
            repo, out = os.path.join(d, "repo"), os.path.join(d, "git_sha.cpp")
            os.makedirs(repo)
            git(repo, "init", "-q")
            first = commit(repo, "one")
            self.assertRegex(first, r"^[0-9a-f]{12}$")
            self.assertEqual(write_sha(repo, out), first)

            os.utime(out, ns=(10**18, 10**18))  # a stamp no write would leave
            self.assertEqual(write_sha(repo, out), first)
            self.assertEqual(os.stat(out).st_mtime_ns, 10**18, "rewritten at the same commit: a needless rebuild")

            second = commit(repo, "two")
            self.assertNotEqual(second, first)
            self.assertEqual(write_sha(repo, out), second)
            self.assertNotEqual(os.stat(out).st_mtime_ns, 10**18)

            # Uncommitted changes do not change the name: the sha is the checked-out commit.
            with open(os.path.join(repo, "f.txt"), "w") as f:
                f.write("edited")
            self.assertEqual(write_sha(repo, out), second)

    def test_outside_git_it_says_unknown(self):
        with tempfile.TemporaryDirectory() as d:
            plain = os.path.join(d, "plain")
            os.makedirs(plain)
            # git stops looking for a repository at the ceiling, as if the folder were not in one.
            env = dict(os.environ, GIT_CEILING_DIRECTORIES=d)
            self.assertEqual(write_sha(plain, os.path.join(d, "git_sha.cpp"), env), "unknown")

    def test_without_its_arguments_it_fails(self):
        p = subprocess.run([CMAKE, "-P", SCRIPT], capture_output=True, text=True)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("-DSOURCE_DIR", p.stderr)


if __name__ == "__main__":
    unittest.main()
