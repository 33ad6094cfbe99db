"""Every command shown in README.md and docs/*.md runs as shown (issue 32): the lines of their fenced
code blocks that start with `$B`, `ringbench`, `./build/…` (or `build/…`), `bash scripts/…` or
`mpirun … ringbench`, joined over trailing backslashes, comments dropped.

- Every ringbench command names a subcommand that exists, and every flag it uses is one that
  `ringbench <subcommand> --help` lists (a synopsis's `[--flag …]` included).
- Where that is cheap it also runs: `run` with `--list` (the sweep it would run, nothing run or
  written; a cuda sweep on a machine without a GPU, or an mpi one outside mpirun, must fail for
  that reason alone), `model` and `--version` as shown. A command with a placeholder (`<config
  id>`) or one that needs files the docs assume (a results folder, a trace) is checked for its
  flags only.
- `bash scripts/X.sh`: the script exists and names every flag the line uses.
- The micro-benchmark binary (ringbench_micro, Google Benchmark): its --help lists the flags.

In a block without a language a line that starts with `ringbench` counts only as `ringbench
<subcommand>` or after a `$ ` prompt, whose transcript (the lines under it) must be what the command
prints: such blocks also show output (`ringbench: error: …`) and Nsight's timeline. Blocks of another
language (json, cpp, python) hold no commands."""
import glob
import os
import re
import shlex
import subprocess
import tempfile
import unittest

from ringbench_test import BIN as BIN_AS_GIVEN, SOURCE_DIR

BIN = os.path.abspath(BIN_AS_GIVEN)  # the commands run in a folder of their own

SHELL_BLOCKS = {"sh", "bash", "shell", "console"}
PLACEHOLDER = "PLACEHOLDER"
COMMAND_START = re.compile(r"^(\$B\b|ringbench\b|\./build/|build/|bash scripts/|mpirun\b)")


def doc_files():
    return [os.path.join(SOURCE_DIR, "README.md")] + sorted(glob.glob(os.path.join(SOURCE_DIR, "docs", "*.md")))


def subcommands():
    p = subprocess.run([BIN, "--help"], capture_output=True, text=True, timeout=60)
    section = p.stdout.split("Subcommands:", 1)[1]
    return {m[1] for m in re.finditer(r"(?m)^  ([a-z]+) ", section)}


def doc_commands(known):
    """(where, text, shown) of every command line in the docs' code blocks; shown: the output a
    transcript gives after a `$ command` line (up to the next `$ ` line or the block's end), else None."""
    out = []
    for path in doc_files():
        rel = os.path.relpath(path, SOURCE_DIR)
        lang, in_block = "", False
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        i = 0
        while i < len(lines):
            line = lines[i]
            if line.lstrip().startswith("```"):
                in_block = not in_block
                lang = line.lstrip()[3:].strip() if in_block else ""
                i += 1
                continue
            start = i
            text = line.strip()
            prompt = in_block and text.startswith("$ ")
            if prompt:
                text = text[2:]
            if in_block and COMMAND_START.match(text) and not text.startswith("ringbench:"):
                while text.endswith("\\") and i + 1 < len(lines):
                    i += 1
                    text = text[:-1] + " " + lines[i].strip()
                shown = None
                if prompt:
                    shown = []
                    while i + 1 < len(lines) and not lines[i + 1].lstrip().startswith(("$ ", "```")):
                        i += 1
                        shown.append(lines[i].strip())
                m = re.match(r"^ringbench ([a-z]+)\b", text)
                plain = lang == "" and (not text.startswith("ringbench") or (m and m[1] in known))
                if lang in SHELL_BLOCKS or prompt or plain:
                    out.append((f"{rel}:{start + 1}", text, shown or None))
            i += 1
    return out


def words(text):
    """The command's words: placeholders (<config id>, …) made one word, comments dropped."""
    text = re.sub(r"<[^<>]*>", PLACEHOLDER, text).replace("…", PLACEHOLDER)
    return shlex.split(text, comments=True)


def flags_of(args):
    """The flags a command line uses: -x, --name (from --name=value), a synopsis's [--name …]."""
    flags = []
    for a in args:
        a = a.strip("[]")
        m = re.match(r"^(--?[A-Za-z][\w-]*)", a)
        if m and not a.startswith("---"):
            flags.append(m[1])
    return flags


def help_flags(argv):
    """The option names a CLI11 help lists: each option line's first word, split at commas."""
    p = subprocess.run(argv + ["--help"], capture_output=True, text=True, timeout=60)
    names = set()
    for line in p.stdout.splitlines():
        m = re.match(r"^\s+(-\S+)", line)
        if m:
            names.update(n for n in m[1].split(",") if n.startswith("-"))
    return p.returncode, names, p.stdout + p.stderr


class DocCommands(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.known = subcommands()
        cls.commands = doc_commands(cls.known)
        cls.help = {}
        cls.tmp = tempfile.TemporaryDirectory(prefix="ringbench-doc-")
        # Commands run in a folder of their own that sees the repository's profiles: what they
        # write (nothing, with --list) cannot land in the source tree.
        os.symlink(os.path.join(SOURCE_DIR, "profiles"), os.path.join(cls.tmp.name, "profiles"))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def flags_in_help(self, sub):
        if sub not in self.help:
            argv = [BIN] + ([sub] if sub else [])
            self.help[sub] = help_flags(argv)
        return self.help[sub]

    def test_the_docs_show_commands(self):
        self.assertGreaterEqual(len(self.commands), 30, self.commands)
        self.assertTrue(any(w.startswith("README.md") for w, _, _ in self.commands))

    def test_every_command(self):
        for where, text, shown in self.commands:
            with self.subTest(where=where, command=text):
                args = words(text)
                if shown:
                    self.check_transcript(args, shown)
                    continue
                if args[0] == "bash":
                    self.check_script(args)
                    continue
                while args and args[0] == "mpirun":  # mpirun -np N PROGRAM …
                    args = args[1:]
                    while args and args[0].startswith("-"):
                        args = args[2:] if args[0] in ("-np", "-n", "--np") else args[1:]
                    args = args[1:] if args and args[0].isdigit() else args
                    mpi = True
                else:
                    mpi = False
                program = args[0]
                if program.endswith("ringbench_micro"):
                    self.check_micro(args)
                    continue
                self.assertTrue(program in ("$B", "ringbench") or program.endswith("/bench/ringbench"), program)
                self.check_ringbench(args[1:], mpi or "mpirun" in text)

    def check_ringbench(self, args, mpi):
        sub = args[0] if args and not args[0].startswith("-") else ""
        if sub:
            self.assertIn(sub, self.known, "no such subcommand")
        rc, names, help_text = self.flags_in_help(sub)
        self.assertEqual(rc, 0, help_text)
        rest = args[1:] if sub else args
        missing = [f for f in flags_of(rest) if f not in names]
        self.assertEqual(missing, [], f"not in `ringbench {sub} --help`")
        if any(PLACEHOLDER in a for a in args) or any(a.startswith("[") for a in args):
            return  # a placeholder or a synopsis: its flags are all that can be checked
        if sub == "run":
            self.assertIn("--list", names)
            p = subprocess.run([BIN, *args, "--list"], capture_output=True, text=True, timeout=300, cwd=self.tmp.name)
            # What this machine or build lacks, not what the doc says: a GPU, an MPI launcher, or (the
            # sanitizer stage's build, configured without CUDA) the backend itself.
            lacks = ("no CUDA device is available", "this build has no CUDA backend", "this build has no NCCL transport")
            if p.returncode == 2 and (any(w in p.stderr for w in lacks) or (mpi and "mpirun" in p.stderr)):
                return  # the flags and the sweep's axes were accepted
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn(" id", p.stdout)
            self.assertEqual(sorted(os.listdir(self.tmp.name)), ["profiles"], "--list writes nothing")
        elif sub in ("model", ""):
            p = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=300, cwd=self.tmp.name)
            self.assertEqual(p.returncode, 0, p.stderr)

    def check_transcript(self, args, shown):
        """A `$ ringbench …` line and the output shown under it: it prints every line shown, to
        stdout or stderr, where `...` or `…` stands for any text, a size or time (a number before GiB,
        MiB, KiB, ms, s or %) for any number, and a run of spaces for any (a column's width)."""
        self.assertEqual(args[0], "ringbench", "a transcript of ringbench")
        p = subprocess.run([BIN, *args[1:]], capture_output=True, text=True, timeout=300, cwd=self.tmp.name)
        printed = (p.stdout + p.stderr).splitlines()
        for line in shown:
            if line.strip() in ("...", "…", ""):
                continue
            parts = []
            for part in re.split(r"\.\.\.|…", line):
                part = re.sub(r" +", " ", part)
                escaped = re.escape(part).replace("\\ ", " ")
                escaped = re.sub(r"\d+(?:\\\.\d+)?(?=( ?(?:[GMK]iB|ms|s)\b|%))", r"[\\d.]+", escaped)
                parts.append(escaped.replace(" ", r"\s+"))
            pattern = r"\s*" + ".*".join(parts) + r"\s*"
            self.assertTrue(any(re.fullmatch(pattern, l) for l in printed), f"shown: {line}\nprinted: {printed}")

    def check_script(self, args):
        script = os.path.join(SOURCE_DIR, args[1])
        self.assertTrue(os.path.isfile(script), args[1])
        with open(script) as f:
            body = f.read()
        for flag in flags_of(args[2:]):
            self.assertTrue(re.search(r"(?<![\w-])" + re.escape(flag) + r"(?![\w-])", body), f"{args[1]} does not take {flag}")

    def check_micro(self, args):
        micro = os.path.join(os.path.dirname(BIN), "micro", "ringbench_micro")
        if not os.path.exists(micro):
            return  # a build without the micro-benchmarks: nothing to hold the flags against
        p = subprocess.run([micro, "--help"], capture_output=True, text=True, timeout=60)
        listed = set(re.findall(r"--\w+", p.stdout + p.stderr))
        self.assertEqual([f for f in flags_of(args[1:]) if f not in listed], [])


if __name__ == "__main__":
    unittest.main()
