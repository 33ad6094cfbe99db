"""Hostile input, round three (issue 28): files. Temporaries that a planted link cannot redirect;
one rule for every output that is a symbolic link (refused, never written through nor replaced);
output paths checked before anything is measured, and a trace that fails later costs only the trace;
a path that ends in '/' names a folder; a symlink loop or a removed working folder is bad input that
names the path; and the messages that used to mislead. Every case is made by the test in its own
temporary folder, and every case asserts the exit code, one line on stderr naming the field, and
that no file changed but those the command writes."""
import json
import os
import subprocess
import unittest

from ringbench_test import BIN, TINY, TinySweepCase, folder_state, read_json, run, tempdir

class HostileFiles(TinySweepCase, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.ids = [r["config"]["id"] for r in read_json(cls.results)["runs"]]

    def refused(self, d, argv, field, says, cwd=None, created=()):
        """Runs argv in folder d (cwd d unless given); asserts exit 2, one stderr line naming field
        and saying `says`, and that nothing under d changed but the paths in `created`."""
        before = folder_state(d)
        p = run(*argv, cwd=cwd or d)
        self.assertEqual(p.returncode, 2, f"{argv}: {p.stdout}{p.stderr}")
        lines = p.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertIn(field, lines[0])
        self.assertIn(says, lines[0])
        after = folder_state(d)
        for rel in created:
            after.pop(rel, None)
        self.assertEqual(after, before, f"{argv} changed files")
        return lines[0]

    def copy_results(self, d, name="in.json"):
        with open(self.results) as f, open(os.path.join(d, name), "w") as g:
            g.write(f.read())
        return os.path.join(d, name)

    # 7: the temporary's name is random and made with O_EXCL, so a planted link is never followed.
    def test_a_link_planted_at_a_predictable_temporary_is_not_followed(self):
        with tempdir() as d:
            res = self.copy_results(d)
            with open(os.path.join(d, "victim"), "w") as f:
                f.write("secret")
            out = os.path.join(d, "out")
            os.makedirs(out)
            # The name this build used to use was .out.html.<pid>.tmp: cover the pids that come next.
            with open("/proc/sys/kernel/ns_last_pid") as f:
                last = int(f.read())
            links = [f".out.html.{pid}.tmp" for pid in range(last + 1, last + 400)] + [".out.html.tmp"]
            for name in links:
                os.symlink(os.path.join(d, "victim"), os.path.join(out, name))
            before = folder_state(d)
            p = run("report", res, "-o", os.path.join(out, "out.html"))
            self.assertEqual(p.returncode, 0, p.stderr)
            after = folder_state(d)
            self.assertEqual(after.pop(os.path.join("out", "out.html"))[0], "file")
            self.assertEqual(after, before, "the report was written through a planted link")
            self.assertEqual(os.stat(os.path.join(out, "out.html")).st_mode & 0o777, 0o666 & ~current_umask())

    # 8: one rule for every output that is a symbolic link: refused, left as it is, target untouched.
    def test_an_output_that_is_a_link_is_refused_whatever_it_points_to(self):
        with tempdir() as d:
            res = self.copy_results(d)
            hist = os.path.join(d, "hist")
            os.makedirs(hist)
            self.copy_results(hist, "2026-11-01.json")
            with open(os.path.join(d, "victim"), "w") as f:
                f.write("keep")
            os.symlink("victim", os.path.join(d, "to-file"))
            os.symlink("nowhere", os.path.join(d, "dangling"))
            os.symlink("loop", os.path.join(d, "loop"))
            kinds = {"to-file": "symbolic link to a file", "dangling": "dangling symbolic link", "loop": "symbolic link in a loop"}
            for link, says in kinds.items():
                cases = [
                    (["report", res, "-o", link], "--out"),
                    (["compare", res, res, "--json-out", link], "--json-out"),
                    (["compare", res, res, "--html", link], "--html"),
                    (["trend", hist, "-o", link], "--out"),
                ]
                for argv, field in cases:
                    with self.subTest(link=link, argv=argv[0], field=field):
                        self.refused(d, argv, field, says)
            self.assertFalse(os.path.lexists(os.path.join(d, "nowhere")))

    def test_a_link_in_the_output_folder_is_refused_before_the_sweep(self):
        # results.jsonl was written through a link, results.json replaced: now both are refused alike.
        for name in ("results.jsonl", "results.json", "report.html"):
            with self.subTest(name), tempdir() as d:
                out = os.path.join(d, "out")
                os.makedirs(out)
                with open(os.path.join(d, "victim"), "w") as f:
                    f.write("keep")
                os.symlink(os.path.join(d, "victim"), os.path.join(out, name))
                line = self.refused(d, ["run", *TINY, "--out", out], "--out", "symbolic link to a file")
                self.assertIn(name, line)

    # 9: output paths are checked before anything is measured; a trace that fails later keeps the timing.
    def test_a_blocked_trace_folder_is_refused_before_any_configuration_runs(self):
        with tempdir() as d:
            out = os.path.join(d, "out")
            os.makedirs(out)
            with open(os.path.join(out, "traces"), "w") as f:
                f.write("not a folder")
            self.refused(d, ["run", *TINY, "--trace", "--out", out], "--trace", "is a file, not a folder")

    def test_a_trace_that_fails_later_keeps_the_timing_and_says_why(self):
        with tempdir() as d:
            out = os.path.join(d, "out")
            os.makedirs(os.path.join(out, "traces"))
            blocked = self.ids[0]
            with open(os.path.join(out, "traces", blocked), "w") as f:  # where its per-rank folder goes
                f.write("in the way")
            p = run("run", *TINY, "--trace", "--out", out)
            self.assertEqual(p.returncode, 0, p.stderr)
            runs = {r["config"]["id"]: r for r in read_json(os.path.join(out, "results.json"))["runs"]}
            self.assertEqual(set(runs), set(self.ids))
            for rid, r in runs.items():
                with self.subTest(rid):
                    self.assertEqual(r["status"], "ok", r.get("reason"))
                    self.assertIsNotNone(r["timing"])
                    self.assertGreater(r["timing"]["median_ms"], 0)
                    if rid == blocked:
                        self.assertIn(os.path.join("traces", blocked), r["trace_error"])
                    else:
                        self.assertNotIn("trace_error", r)
                        # a c = 1 alias's traces are those of the configuration it repeats, whose
                        # record says why they are missing when they are
                        traced = r.get("alias_of", rid)
                        if traced == blocked:
                            self.assertIn("trace_error", runs[blocked])
                        else:
                            self.assertTrue(os.path.isdir(os.path.join(out, "traces", traced)))
            with open(os.path.join(out, "traces", blocked)) as f:
                self.assertEqual(f.read(), "in the way")

    # 10: a path that ends in '/' names a folder: nothing is created.
    def test_an_output_file_ending_in_a_slash_creates_nothing(self):
        with tempdir() as d:
            res = self.copy_results(d)
            hist = os.path.join(d, "hist")
            os.makedirs(hist)
            self.copy_results(hist, "2026-11-01.json")
            cases = [
                (["report", res, "-o", "newdir/"], "--out"),
                (["report", res, "-o", os.path.join(d, "a", "b") + "/"], "--out"),
                (["trend", hist, "-o", "newdir/"], "--out"),
                (["compare", res, res, "--html", "newdir/"], "--html"),
                (["compare", res, res, "--json-out", "newdir/"], "--json-out"),
            ]
            for argv, field in cases:
                with self.subTest(argv):
                    self.refused(d, argv, field, "names a folder")

    # 14: a symlink loop is bad input naming the path, in a history, an analyze folder, or as a file.
    def test_a_symlink_loop_names_the_path_and_says_it_is_a_loop(self):
        with tempdir() as d:
            res = self.copy_results(d)
            hist = os.path.join(d, "hist")
            os.makedirs(hist)
            self.copy_results(hist, "2026-11-01.json")
            os.symlink("2026-11-02.json", os.path.join(hist, "2026-11-02.json"))
            traces = os.path.join(d, "traces")
            os.makedirs(traces)
            with open(os.path.join(traces, "rank0.json"), "w") as f:
                json.dump({"traceEvents": []}, f)
            os.symlink("rank1.json", os.path.join(traces, "rank1.json"))
            os.symlink("loop", os.path.join(d, "loop"))
            cases = [
                (["trend", hist, "-o", "t.html"], os.path.join(hist, "2026-11-02.json")),
                (["report", res, "--history", hist, "-o", "r.html"], os.path.join(hist, "2026-11-02.json")),
                (["analyze", traces], os.path.join(traces, "rank1.json")),
                (["analyze", "loop"], "loop"),
                (["report", "loop"], "loop"),
                (["trend", "loop"], "loop"),
                (["trend", hist, "--baseline", "loop"], "--baseline"),
                (["report", res, "--history", "loop"], "--history"),
            ]
            for argv, field in cases:
                with self.subTest(argv):
                    line = self.refused(d, argv, field, "symbolic links")
                    self.assertIn("symlink loop", line)
                    self.assertNotIn("does not exist", line)

    def test_a_dangling_entry_is_bad_input_not_a_night_or_a_rank_left_out(self):
        with tempdir() as d:
            hist = os.path.join(d, "hist")
            os.makedirs(hist)
            self.copy_results(hist, "2026-11-01.json")
            os.symlink("gone.json", os.path.join(hist, "2026-11-02.json"))
            traces = os.path.join(d, "traces")
            os.makedirs(traces)
            with open(os.path.join(traces, "rank0.json"), "w") as f:
                json.dump({"traceEvents": []}, f)
            os.symlink("gone.json", os.path.join(traces, "rank1.json"))
            for argv, field in ((["trend", hist, "-o", "t.html"], os.path.join(hist, "2026-11-02.json")),
                                (["analyze", traces], os.path.join(traces, "rank1.json"))):
                with self.subTest(argv):
                    self.refused(d, argv, field, "cannot be read")

    def test_a_removed_working_folder_is_bad_input_naming_the_flag(self):
        with tempdir() as d:
            res = self.copy_results(d)
            hist = os.path.join(d, "hist")
            os.makedirs(hist)
            self.copy_results(hist, "2026-11-01.json")
            cases = [
                (["report", res, "-o", "r.html"], "--out"),
                (["trend", hist, "-o", "t.html"], "--out"),
                (["trend", hist], "--out"),  # the default, trend.html, is relative too
                (["run", *TINY, "--out", "results"], "--out"),
                (["run", *TINY], "--out"),
                (["compare", res, res, "--json-out", "c.json"], "--json-out"),
            ]
            for argv, field in cases:
                with self.subTest(argv):
                    before = folder_state(d)
                    gone = os.path.join(d, "gone")
                    os.makedirs(gone)
                    p = subprocess.run(["bash", "-c", 'cd "$1" && rmdir "$1" && shift && exec "$@"', "-", gone, BIN,
                                        *argv], capture_output=True, text=True, timeout=120)
                    self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
                    lines = p.stderr.strip().splitlines()
                    self.assertEqual(len(lines), 1, p.stderr)
                    self.assertIn(field, lines[0])
                    self.assertIn("working folder cannot be found", lines[0])
                    self.assertEqual(folder_state(d), before)

    # The messages that used to mislead.
    def test_out_at_a_regular_file_says_a_folder_is_needed(self):
        with tempdir() as d:
            with open(os.path.join(d, "afile"), "w") as f:
                f.write("x")
            line = self.refused(d, ["run", *TINY, "--out", "afile"], "--out", "is a file, not a folder")
            self.assertNotIn("not a regular file", line)
            line = self.refused(d, ["run", *TINY, "--out", "r", "--dump", "afile"], "--dump", "is a file, not a folder")

    def test_out_at_a_dangling_link_says_so(self):
        with tempdir() as d:
            os.symlink("nowhere", os.path.join(d, "dangling"))
            line = self.refused(d, ["run", *TINY, "--out", "dangling"], "--out", "dangling symbolic link")
            self.assertNotIn("File exists", line)
            self.assertFalse(os.path.lexists(os.path.join(d, "nowhere")))

    def test_a_pretty_printed_document_given_as_jsonl_says_what_it_looks_like(self):
        with tempdir() as d:
            res = self.copy_results(d)
            with open(os.path.join(d, "pretty.jsonl"), "w") as f:
                json.dump(read_json(self.results), f, indent=2)
            with open(os.path.join(d, "torn-pretty.jsonl"), "w") as f:
                f.write(json.dumps(read_json(self.results), indent=2)[:500])
            for name in ("pretty.jsonl", "torn-pretty.jsonl"):
                for argv in (["report", name, "-o", "r.html"], ["compare", name, res]):
                    with self.subTest(argv):
                        line = self.refused(d, argv, name, "pretty-printed JSON document")
                        self.assertNotIn("two writers", line)


def current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


if __name__ == "__main__":
    unittest.main()
