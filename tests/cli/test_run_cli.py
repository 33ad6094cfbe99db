"""`ringbench run` end to end: a sweep from flags and from a profile writes every configuration,
checked and timed, to results.jsonl and results.json, and prints where they are."""
import json
import os
import unittest

from ringbench_test import SOURCE_DIR, console_rows, read_json, read_jsonl, run, tempdir


class RunCli(unittest.TestCase):
    def test_sweep_from_flags_is_the_product_of_the_axes(self):
        with tempdir() as d:
            out = os.path.join(d, "res")
            p = run("run", "--seq", "96,192", "--cp", "1,2,4", "--split", "contiguous,zigzag",
                    "--variant", "ring,allgather", "--heads", "4", "--kv-heads", "2", "--head-dim", "16",
                    "--dtype", "float64", "--repeats", "2", "--out", out)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("results: " + os.path.abspath(os.path.join(out, "results.json")), p.stdout)
            lines = read_jsonl(os.path.join(out, "results.jsonl"))
            # Two repeats make two rounds (one pass each): a line per measured configuration per
            # round. At c = 1 the four splits x variants are one computation: one is measured, the
            # other three of each S are its aliases, written once (docs/design.md, "c = 1 runs once").
            measured, aliases = 2 * (2 * 2 * 2 + 1), 2 * 3
            self.assertEqual(len(lines), 2 * measured + aliases)
            doc = read_json(os.path.join(out, "results.json"))
            self.assertEqual(doc["schema"], "ringbench.results")
            self.assertRegex(doc["schema_version"], r"^\d+\.\d+\.\d+$")
            self.assertEqual(len(doc["runs"]), 2 * 3 * 2 * 2)  # every configuration has its record
            self.assertEqual(sum("alias_of" in r for r in doc["runs"]), aliases)
            last = {r["config"]["id"]: r for r in lines}  # the last line of each id is its record
            self.assertEqual(last, {r["config"]["id"]: r for r in doc["runs"]})
            seen = set()
            for r in doc["runs"]:
                self.assertEqual(r["status"], "ok", r.get("reason"))
                self.assertTrue(r["correctness"]["passed"])
                self.assertTrue(r["correctness"]["all_rows"])
                self.assertLess(r["correctness"]["max_abs_err"], 1e-10)
                self.assertEqual(len(r["timing"]["samples_ms"]), 2)
                self.assertGreater(r["timing"]["median_ms"], 0)
                self.assertGreater(r["metrics"]["attention_tflops"], 0)
                c = r["config"]
                seen.add((c["seq"], c["cp"], c["split"], c["variant"]))
                self.assertEqual(len(r["plan"]["per_rank"]), c["cp"])
                self.assertEqual(len(r["metrics"]["per_rank"]), c["cp"])
            self.assertEqual(len(seen), 24)
            # The plan's imbalance is exact: contiguous c=4 at S=192 is (2S - n + 1)/(S + 1) with n = 48.
            r = next(r for r in doc["runs"] if r["config"]["cp"] == 4 and r["config"]["seq"] == 192
                     and r["config"]["split"] == "contiguous")
            self.assertAlmostEqual(r["plan"]["work_imbalance"], (2 * 192 - 48 + 1) / 193, places=12)
            # Progress: one row per configuration on stderr with its verdict.
            self.assertEqual([r["status"] for r in console_rows(p.stderr)], ["ok"] * 24)

    def test_auto_kernel_on_the_cpu_backend_runs_ringbench_and_says_why(self):
        with tempdir() as d:
            out = os.path.join(d, "res")
            p = run("run", "--seq", "64", "--cp", "2", "--split", "zigzag", "--heads", "2", "--kv-heads", "1",
                    "--head-dim", "8", "--repeats", "1", "--kernel", "auto", "--out", out)
            self.assertEqual(p.returncode, 0, p.stderr)
            doc = read_json(os.path.join(out, "results.json"))
            self.assertEqual(doc["profile"]["sweep"]["kernel"], "auto")
            (r,) = doc["runs"]
            # The default kernel keeps the ids of results written before the kernel was recorded.
            self.assertEqual(r["config"]["kernel"], "ringbench")
            self.assertFalse(r["config"]["id"].endswith("-cudnn"), r["config"]["id"])
            choice = r["kernel_choice"]
            self.assertEqual((choice["requested"], choice["chosen"]), ("auto", "ringbench"))
            self.assertTrue("cpu backend" in choice["why"] or "no cuDNN" in choice["why"], choice["why"])
            self.assertIn("libraries", doc["host"])

    def test_profile_with_flags_overriding_axes(self):
        with tempdir() as d:
            prof = os.path.join(d, "p.json")
            with open(prof, "w") as f:
                json.dump({"name": "tiny", "sweep": {"seq": [60], "cp": [1, 3], "split": "striped",
                                                     "heads": 2, "kv_heads": 1, "head_dim": 8, "causal": False,
                                                     "dtype": "float64", "repeats": 1}}, f)
            out = os.path.join(d, "res")
            p = run("run", prof, "--cp", "2", "--out", out)
            self.assertEqual(p.returncode, 0, p.stderr)
            doc = read_json(os.path.join(out, "results.json"))
            self.assertEqual(doc["profile"]["name"], "tiny")
            self.assertEqual([r["config"]["cp"] for r in doc["runs"]], [2])
            self.assertEqual(doc["runs"][0]["config"]["causal"], False)
            self.assertEqual(doc["runs"][0]["config"]["split"], "striped")

    def test_a_profiles_rounds_hold_unless_the_flag_overrides_them(self):
        with tempdir() as d:
            prof = os.path.join(d, "p.json")
            with open(prof, "w") as f:
                json.dump({"name": "rounds", "sweep": {"seq": [64], "cp": [2], "split": "zigzag", "heads": 2,
                                                       "kv_heads": 1, "head_dim": 8, "dtype": "float64",
                                                       "repeats": 4, "rounds": 4}}, f)
            for extra, rounds in (([], 4), (["--rounds", "2"], 2)):
                out = os.path.join(d, f"res{rounds}")
                p = run("run", prof, *extra, "--out", out)
                self.assertEqual(p.returncode, 0, p.stderr)
                doc = read_json(os.path.join(out, "results.json"))
                self.assertEqual(doc["runs"][0]["timing"]["rounds"], rounds)
                self.assertEqual(doc["runs"][0]["timing"]["round_counts"], [4 // rounds] * rounds)
                self.assertEqual(doc["profile"]["sweep"]["rounds"], 4)
            # A pair of this sweep, tested round by round, can reach 2/2^4 = 0.125 at best: refused.
            p = run("run", prof, "--require-power", "0.05", "--out", os.path.join(d, "refused"))
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("/sweep/rounds", p.stderr)
            self.assertIn("take at least 7 rounds and 7 repeats", p.stderr)

    def test_smoke_profile_parses_and_covers_every_axis(self):
        prof = read_json(os.path.join(SOURCE_DIR, "profiles", "smoke.json"))
        sweep = prof["sweep"]
        self.assertEqual(set(sweep["split"]), {"contiguous", "zigzag", "striped"})
        self.assertEqual(set(sweep["variant"]), {"ring", "allgather"})

    def test_strategies_profile_compares_every_strategy_with_the_power_to_decide(self):
        prof_path = os.path.join(SOURCE_DIR, "profiles", "strategies.json")
        sweep = read_json(prof_path)["sweep"]
        self.assertEqual(set(sweep["variant"]), {"ring", "allgather", "ulysses", "hybrid"})
        self.assertEqual(sweep["backend"], "cpu")
        # c spans the crossover the bytes predict, (Hq + Hkv)/Hkv = 5 for these heads.
        self.assertLess(min(sweep["cp"]), (sweep["heads"] + sweep["kv_heads"]) / sweep["kv_heads"])
        self.assertGreater(max(sweep["cp"]), (sweep["heads"] + sweep["kv_heads"]) / sweep["kv_heads"])
        with tempdir() as d:
            p = run("run", prof_path, "--require-power", "0.05", "--list", "--out", os.path.join(d, "o"))
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("-hybrid-", p.stdout)
            self.assertIn("-u2", p.stdout)
            self.assertIn("24 configurations: 24 would run, 0 skipped", p.stdout)

    def test_skip_invalid_records_the_rule_and_goes_on(self):
        with tempdir() as d:
            out = os.path.join(d, "res")
            p = run("run", "--seq", "36", "--cp", "2,4", "--split", "zigzag", "--heads", "2", "--kv-heads", "1",
                    "--head-dim", "8", "--repeats", "1", "--skip-invalid", "--out", out)
            self.assertEqual(p.returncode, 0, p.stderr)
            runs = read_json(os.path.join(out, "results.json"))["runs"]
            self.assertEqual([r["status"] for r in runs], ["ok", "skipped"])
            self.assertIn("S % (2c) == 0", runs[1]["reason"])

    def test_full_attention_has_both_spellings_on_run_and_model(self):
        # run spelled it --no-causal and model --non-causal, each refusing the other's: both take both,
        # and the two spellings make the same sweep and the same model.
        shape = ["--seq", "64", "--cp", "1,2", "--split", "zigzag", "--heads", "2", "--kv-heads", "1", "--head-dim",
                 "8", "--list"]
        with tempdir() as d:
            lists = {flag: run("run", *shape, flag, cwd=d) for flag in ("--no-causal", "--non-causal")}
        for flag, p in lists.items():
            self.assertEqual(p.returncode, 0, (flag, p.stderr))
            self.assertIn("-full-float32-cpu-local", p.stdout)
            self.assertNotIn("-causal-", p.stdout)

        def planned(p):  # the listing less the memory the machine has free now
            return [l for l in p.stdout.splitlines() if not l.startswith("host memory:")]

        self.assertEqual(planned(lists["--no-causal"]), planned(lists["--non-causal"]))
        p = run("run", "--causal", "--non-causal", "--list")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("--causal: value given with --no-causal is invalid", p.stderr)
        model = ["model", "--preset", "llama3-8b", "--seq", "8k", "--cp", "2,4", "--no-simulate", "--json"]
        models = {flag: run(*model, *([flag] if flag else [])) for flag in ("--no-causal", "--non-causal", "")}
        for flag, p in models.items():
            self.assertEqual(p.returncode, 0, (flag, p.stderr))
        self.assertEqual(models["--no-causal"].stdout, models["--non-causal"].stdout)
        self.assertNotEqual(models["--no-causal"].stdout, models[""].stdout)  # causal by default
        self.assertIn('"causal": false', models["--no-causal"].stdout)
        # The help names --no-causal first and the other spelling beside it, on both commands.
        for command in ("run", "model"):
            self.assertIn("--no-causal,--non-causal", run(command, "--help").stdout, command)

    def test_help_for_run(self):
        p = run("run", "--help")
        self.assertEqual(p.returncode, 0)
        for flag in ["--seq", "--cp", "--split", "--variant", "--heads", "--kv-heads", "--head-dim", "--causal",
                     "--no-causal", "--backend", "--dtype", "--seed", "--repeats", "--out", "--dump"]:
            self.assertIn(flag, p.stdout)

    def test_version_says_whether_cudnn_opens_here(self):
        # A build with cuDNN ends --version with whether its library opens on this machine (the
        # device check runs the cudnn acceptance only where it does); one without says nothing.
        lines = run("--version").stdout.splitlines()
        built = next(line for line in lines if line.startswith("built with:")).split()
        cudnn = [line for line in lines if line.startswith("cudnn library: ")]
        if "cudnn" not in built:
            self.assertEqual(cudnn, [])
            return
        self.assertEqual(len(cudnn), 1, lines)
        self.assertEqual(lines[-1], cudnn[0])
        self.assertRegex(cudnn[0], r"^cudnn library: (\d+\.\d+\.\d+ \(/.*libcudnn[^)]*\)|unavailable: .+)$")
        env = dict(os.environ, RINGBENCH_CUDNN_LIBRARY="/nonexistent/libcudnn.so.9")
        p = run("--version", env=env)
        self.assertRegex(p.stdout.splitlines()[-1], r"^cudnn library: unavailable: .*/nonexistent/libcudnn.so.9")


if __name__ == "__main__":
    unittest.main()
