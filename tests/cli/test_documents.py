"""Packed documents from the command line (docs/design.md §3c, issue 45):

- `ringbench model --documents …` gives each split's work per rank as a count of every (query, key)
  pair within one document, made here in Python from the splits' definitions (doc-zigzag padding
  each document to a multiple of 2c);
- `ringbench run --documents …` records the spec, the lengths and the padding, names them in the id
  only where there are documents, checks every split against the reference, plans the same
  brute-force count, and draws a generator's lengths again for the same seed (other ones for
  another seed);
- ids name the lengths (or a 128-bit digest of long lists), so two lists are two configurations,
  and a 2.12.0 file's ids are read as today's (issue 51)."""
import json
import os
import unittest

from ringbench_test import read_json, run, tempdir

SHAPE = ["--heads", "2", "--kv-heads", "1", "--head-dim", "8"]


def segments(split, S, c, r, extents):
    """The positions rank r holds (docs/design.md §2 and §3c)."""
    if split == "contiguous":
        n = S // c
        return list(range(r * n, (r + 1) * n))
    if split == "zigzag":
        n = S // (2 * c)
        return list(range(r * n, (r + 1) * n)) + list(range((2 * c - 1 - r) * n, (2 * c - r) * n))
    if split == "striped":
        return list(range(r, S, c))
    out, at = [], 0
    for e in extents:  # doc-zigzag: chunks r and 2c-1-r of every document
        n = e // (2 * c)
        out += list(range(at + r * n, at + (r + 1) * n)) + list(range(at + (2 * c - 1 - r) * n, at + (2 * c - r) * n))
        at += e
    return out


def rank_pairs(split, lengths, c, causal=True, pad=True):
    """Each rank's (query, key) pairs within one document, by looking at every pair."""
    m = 2 * c
    extents = [(l + m - 1) // m * m for l in lengths] if split == "doc-zigzag" and pad else list(lengths)
    doc, at = [], 0
    for d, (l, e) in enumerate(zip(lengths, extents)):
        doc += [d] * l + [-1] * (e - l)
        at += e
    S = len(doc)
    counts = []
    for r in range(c):
        n = 0
        for q in segments(split, S, c, r, extents):
            if doc[q] < 0:
                continue
            n += sum(1 for k in range(S) if doc[k] == doc[q] and (not causal or k <= q))
        counts.append(n)
    return counts, S - sum(lengths)


class ModelDocuments(unittest.TestCase):
    def test_the_model_reproduces_the_count_for_every_split(self):
        lengths = [10, 30, 7, 49]
        for c in (2, 4):
            p = run("model", "--layers", "1", "--hidden", "16", *SHAPE, "--seq", "96", "--cp", str(c),
                    "--documents", "+".join(map(str, lengths)), "--no-simulate", "--json")
            self.assertEqual(p.returncode, 0, p.stderr)
            rep = json.loads(p.stdout)
            splits = rep["series"]["work_per_device"][0]["splits"]
            # --documents adds doc-zigzag to the default splits.
            self.assertEqual(set(splits), {"contiguous", "zigzag", "striped", "doc-zigzag"})
            for split, got in splits.items():
                counts, padding = rank_pairs(split, lengths, c)
                with self.subTest(split=split, c=c):
                    self.assertEqual(got["flops_per_rank"], [4.0 * 8 * 2 * n for n in counts])
                    self.assertAlmostEqual(got["imbalance"], max(counts) * c / sum(counts))
                    work = next(w for w in rep["points"][0]["work"] if w["split"] == split)
                    self.assertEqual(work["padding_tokens"], padding)
            self.assertEqual(rep["points"][0]["documents"]["count"], 4)
            self.assertEqual(rep["inputs"]["documents"], "10+30+7+49")

    def test_the_table_names_the_mix(self):
        p = run("model", "--preset", "llama3-8b", "--seq", "128k", "--cp", "8", "--documents", "lognormal:4k:1",
                "--no-simulate")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("documents lognormal:4k:1 at S=131072:", p.stdout)
        self.assertIn("imb doc-zi", p.stdout)


class RunDocuments(unittest.TestCase):
    def sweep(self, out, *extra, split="contiguous,zigzag,striped,doc-zigzag"):
        p = run("run", "--seq", "48", "--cp", "2", "--split", split, "--dtype", "float64", *SHAPE, "--repeats", "1",
                "--warmup", "0", "--rounds", "1", "--out", out, *extra)
        self.assertEqual(p.returncode, 0, p.stderr)
        return read_json(os.path.join(out, "results.json"))

    def test_records_checks_and_plans_the_documents(self):
        with tempdir() as d:
            doc = self.sweep(os.path.join(d, "a"), "--documents", "5+30+13,none", "--pad-documents")
            runs = doc["runs"]
            self.assertEqual(len(runs), 8)
            for r in runs:
                cfg = r["config"]
                with self.subTest(id=cfg["id"]):
                    self.assertEqual(r["status"], "ok", r.get("reason"))
                    self.assertTrue(r["correctness"]["passed"])
                    if "documents" not in cfg:  # none: the id and config of one causal sequence
                        self.assertNotIn("-docs", cfg["id"])
                        self.assertNotIn("document_lengths", cfg)
                        continue
                    self.assertEqual(cfg["documents"], "5+30+13")
                    self.assertEqual(cfg["document_lengths"], [5, 30, 13])
                    self.assertTrue(cfg["id"].endswith("-docs-5+30+13"), cfg["id"])
                    counts, padding = rank_pairs(cfg["split"], [5, 30, 13], 2)
                    self.assertEqual(cfg["padding_tokens"], padding)
                    self.assertEqual(cfg["seq"], 48 + padding)
                    self.assertEqual([x["unmasked_pairs"] for x in r["plan"]["per_rank"]], counts)
                    # Only real tokens are checked: all 48 of them.
                    self.assertEqual(r["correctness"]["rows_checked"], 48)

    def test_a_generator_draws_the_same_lengths_for_the_same_seed(self):
        with tempdir() as d:
            runs = {}
            for name, seed in (("a", "3"), ("b", "3"), ("c", "4")):
                doc = self.sweep(os.path.join(d, name), "--documents", "uniform:2:20", "--seed", seed, split="striped")
                runs[name] = doc["runs"][0]["config"]
            self.assertEqual(runs["a"]["document_lengths"], runs["b"]["document_lengths"])
            self.assertEqual(runs["a"]["id"], runs["b"]["id"])
            self.assertNotEqual(runs["a"]["document_lengths"], runs["c"]["document_lengths"])
            self.assertNotEqual(runs["a"]["id"], runs["c"]["id"])
            for r in runs.values():
                self.assertEqual(sum(r["document_lengths"]), 48)
                self.assertTrue(all(2 <= x <= 20 for x in r["document_lengths"][:-1]))


def digest_2_12(lengths):
    """2.12.0's documents digest: the high 32 bits of FNV-1a 64 over the lengths joined by '+'."""
    h = 0xcbf29ce484222325
    for ch in "+".join(map(str, lengths)).encode():
        h = ((h ^ ch) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{h >> 32:08x}"


class DocumentIds(unittest.TestCase):
    """Issue 51, item 7: ids that cannot collide, and 2.12.0's ids still paired."""

    def test_two_lists_of_one_old_digest_are_two_configurations(self):
        # Both had the 2.12.0 id ...-docsfe988c74; the sweep listed the first and dropped the second.
        self.assertEqual(digest_2_12([34, 379, 99]), digest_2_12([101, 234, 177]))
        p = run("run", "--seq", "512", "--cp", "1", *SHAPE, "--documents", "34+379+99,101+234+177", "--list")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("-docs-34+379+99", p.stdout)
        self.assertIn("-docs-101+234+177", p.stdout)

    def test_a_2_12_file_pairs_with_its_own_runs(self):
        # Read back in the 2.12.0 form (version and ids), a file pairs run for run with itself as
        # written now, and with itself as written then: compare names no run MISSING or NEW.
        with tempdir() as d:
            out = os.path.join(d, "a")
            # c = 1 runs one split and records the other as its alias (alias_of names an id too).
            p = run("run", "--seq", "48", "--cp", "1,2", "--split", "striped,zigzag", "--dtype", "float64", *SHAPE,
                    "--repeats", "2", "--warmup", "0", "--rounds", "1", "--documents", "5+30+13", "--out", out)
            self.assertEqual(p.returncode, 0, p.stderr)
            new = os.path.join(out, "results.json")
            doc = read_json(new)
            ids = [r["config"]["id"] for r in doc["runs"] if not r.get("alias_of")]  # compare lists aliases apart
            self.assertEqual(len(doc["runs"]) - len(ids), 1)
            doc["schema_version"] = "2.12.0"
            then = "-docs" + digest_2_12([5, 30, 13])
            for r in doc["runs"]:
                r["schema_version"] = "2.12.0"
                r["config"]["id"] = r["config"]["id"].replace("-docs-5+30+13", then)
                if r.get("alias_of"):
                    r["alias_of"] = r["alias_of"].replace("-docs-5+30+13", then)
            old = os.path.join(d, "old.json")
            with open(old, "w") as f:
                json.dump(doc, f)
            for base, neu in ((old, new), (old, old)):
                p = run("compare", base, neu, "--json")
                self.assertIn(p.returncode, (0, 1), p.stderr)
                runs = json.loads(p.stdout)["runs"]
                self.assertEqual(sorted(r["id"] for r in runs), sorted(ids))
                self.assertFalse([r for r in runs if r["verdict"] in ("MISSING", "NEW")], runs)


if __name__ == "__main__":
    unittest.main()
