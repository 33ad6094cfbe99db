"""Table-driven bad input across every command and every kind of input file: each row must exit 2
with one line on stderr that names where the problem is (flag, file, JSON path) and the offending
value, and must write nothing as if it had succeeded."""
import json
import os
import unittest

from ringbench_test import run, tempdir

GOOD_PROFILE = {"sweep": {"seq": 64, "cp": 2, "heads": 2, "kv_heads": 1, "head_dim": 8, "repeats": 1}}
RESULTS_HEADER = {"schema": "ringbench.results", "schema_version": "0.1.0", "runs": []}
GOOD_RUN = {"config": {"id": "x", "seq": 64, "cp": 2, "heads": 2, "kv_heads": 1, "head_dim": 8, "split": "zigzag",
                       "variant": "ring", "dtype": "float32", "backend": "cpu", "transport": "local"},
            "status": "ok", "reason": None, "timing": {"samples_ms": [1.0], "median_ms": 1.0}}
TINY = ["--heads", "2", "--kv-heads", "1", "--head-dim", "8", "--repeats", "1"]
DEEP = 100000  # levels of nesting that overflowed the stack before the parser's depth limit


def nested(depth, leaf="64"):
    return "[" * depth + leaf + "]" * depth


def deep_object(depth):
    return '{"a":' * depth + "1" + "}" * depth


def results(**change):
    doc = json.loads(json.dumps(RESULTS_HEADER))
    doc["runs"] = [json.loads(json.dumps(GOOD_RUN))]
    for path, value in change.items():
        *parents, leaf = path.split("__")
        node = doc
        for p in parents:
            node = node[int(p)] if isinstance(node, list) else node[p]
        if value is KeyError:
            del node[leaf]
        else:
            node[leaf] = value
    return doc


# (name, argv with {file} placeholders, files to create {name: text or JSON}, words stderr must contain)
CASES = [
    # run: flags
    ("run seq not divisible", ["run", "--seq", "100", "--cp", "3", "--split", "zigzag", *TINY], {}, ["seq", "100"]),
    ("run c > S", ["run", "--seq", "4", "--cp", "8", *TINY], {}, ["cp", "8"]),
    ("run heads not grouping", ["run", "--seq", "64", "--heads", "6", "--kv-heads", "4"], {}, ["heads", "6"]),
    ("run unknown split", ["run", "--split", "diagonal", *TINY], {}, ["--split", "diagonal"]),
    ("run unknown variant", ["run", "--variant", "tree", *TINY], {}, ["--variant", "tree"]),
    ("run unknown dtype", ["run", "--dtype", "float8", *TINY], {}, ["--dtype", "float8"]),
    ("run unknown backend", ["run", "--backend", "tpu", *TINY], {}, ["--backend", "tpu"]),
    ("run unknown transport", ["run", "--transport", "carrier-pigeon", *TINY], {}, ["--transport", "carrier-pigeon"]),
    ("run zero seq", ["run", "--seq", "0", *TINY], {}, ["seq", "0"]),
    ("run zero head dim", ["run", "--head-dim", "0", "--heads", "2", "--kv-heads", "1"], {}, ["head-dim", "0"]),
    ("run zero repeats", ["run", "--repeats", "0", "--heads", "2", "--kv-heads", "1"], {}, ["repeats", "0"]),
    ("run negative link", ["run", "--link-gbps=-1", *TINY], {}, ["link", "-1"]),
    ("run negative timeout", ["run", "--timeout=-5", *TINY], {}, ["--timeout", "-5"]),
    ("run zero rounds", ["run", "--rounds", "0", *TINY], {}, ["--rounds", "0"]),
    ("run bad fault", ["run", "--inject-fault", "boom@x", *TINY], {}, ["--inject-fault", "boom@x"]),
    # --inject-fault where it cannot act would leave its configuration ok, as if the check missed it
    ("run fault past the sweep", ["run", "--seq", "64", "--cp", "2", "--split", "zigzag", "--inject-fault", "throw@5",
                                  *TINY], {}, ["--inject-fault", "throw@5", "N = 5"]),
    ("run wrong-block without a backward", ["run", "--seq", "64", "--cp", "2", "--inject-fault", "wrong-block@0",
                                            *TINY], {}, ["--inject-fault", "wrong-block@0", "no backward step"]),
    ("run wrong-block on ulysses", ["run", "--seq", "64", "--cp", "2", "--split", "zigzag", "--variant", "ulysses",
                                    "--phase", "fwd+bwd", "--inject-fault", "wrong-block@0", *TINY], {},
     ["--inject-fault", "wrong-block@0", "no backward step after the first"]),
    ("run corrupt after the check's round", ["run", "--seq", "64", "--cp", "2", "--split", "zigzag", "--rounds", "3",
                                             "--repeats", "3", "--heads", "2", "--kv-heads", "1", "--head-dim", "8",
                                             "--inject-fault", "corrupt@0/2"], {},
     ["--inject-fault", "corrupt@0/2", "round 1"]),
    ("run bfloat16 on cpu", ["run", "--dtype", "bfloat16", *TINY], {}, ["dtype", "bfloat16"]),
    # the head exchange's rules (docs/design.md §3b)
    ("run ulysses degree not dividing c", ["run", "--variant", "hybrid", "--cp", "6", "--ulysses-degree", "4",
                                           "--seq", "48", "--heads", "8", "--kv-heads", "4", "--head-dim", "8"],
     {}, ["ulysses-degree", "4", "U divides c"]),
    ("run ulysses heads not dividing", ["run", "--variant", "ulysses", "--cp", "4", "--seq", "64", "--heads", "6",
                                        "--kv-heads", "2", "--head-dim", "8"], {}, ["heads", "6", "Hq % U == 0"]),
    ("run hybrid kv heads neither split nor replicated",
     ["run", "--variant", "hybrid", "--cp", "6", "--ulysses-degree", "3", "--seq", "48", "--heads", "6",
      "--kv-heads", "2", "--head-dim", "8"], {}, ["kv-heads", "2", "Hkv % U == 0", "U % Hkv == 0"]),
    ("run hybrid split over the groups", ["run", "--variant", "hybrid", "--cp", "4", "--ulysses-degree", "2",
                                          "--split", "zigzag", "--seq", "100", *TINY], {}, ["seq", "100"]),
    ("run zero ulysses degree", ["run", "--variant", "hybrid", "--ulysses-degree", "0", *TINY], {},
     ["--ulysses-degree", "0"]),
    ("analyze excludes everything", ["analyze", "--hta-drop-last-step", "{t.json}"],
     {"t.json": {"traceEvents": [
         {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 0, "dur": 10, "pid": 1, "tid": 1},
         {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "ts": 10, "dur": 10, "pid": 1, "tid": 1},
         {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 12, "dur": 1, "pid": 1, "tid": 1,
          "args": {"correlation": 7}},
         {"ph": "X", "cat": "kernel", "name": "gemm", "ts": 14, "dur": 3, "pid": 0, "tid": 7,
          "args": {"correlation": 7, "stream": 7}}]}},
     ["--hta-drop-last-step", "no device events left"]),
    ("run unknown kernel", ["run", "--kernel", "flash3", *TINY], {}, ["--kernel", "flash3", "ringbench, cudnn, auto"]),
    # In a build with cuDNN the cpu backend is the reason; in one without, the build is.
    ("run cudnn on the cpu backend", ["run", "--kernel", "cudnn", *TINY], {}, ["kernel", "cudnn"]),
    ("profile zero ulysses degree", ["run", "{p.json}"],
     {"p.json": {"sweep": {**GOOD_PROFILE["sweep"], "variant": "hybrid", "ulysses_degree": [2, 0]}}},
     ["p.json", "/sweep/ulysses_degree/1", "0"]),
    ("profile unknown kernel", ["run", "{p.json}"], {"p.json": {"sweep": {**GOOD_PROFILE["sweep"], "kernel": "fa2"}}},
     ["p.json", "/sweep/kernel", "fa2"]),
    ("run bad rank mode", ["run", "--rank-mode", "sideways", *TINY], {}, ["--rank-mode", "sideways"]),
    # run: flags share the profile's validator, bounds included
    ("run seq beyond 2^40", ["run", "--seq", "4611686018427387904", "--cp", "1", "--split", "contiguous", *TINY], {},
     ["--seq", "4611686018427387904", "at most 1099511627776"]),
    ("run seq beyond int64", ["run", "--seq", "99999999999999999999999", "--cp", "1", *TINY], {},
     ["--seq", "99999999999999999999999", "at most"]),
    ("run seq empty", ["run", "--seq", "", *TINY], {}, ["--seq", "''", "empty"]),
    ("run cp empty item", ["run", "--cp", "1,,2", *TINY], {}, ["--cp", "''", "empty"]),
    ("run seq not a number", ["run", "--seq", "64q", *TINY], {}, ["--seq", "64q", "whole number of tokens"]),
    ("run seq range backwards", ["run", "--seq", "4k:1k:x2", *TINY], {}, ["--seq", "4k:1k:x2", "before it begins"]),
    ("profile seq range too long", ["run", "{p.json}"], {"p.json": {"sweep": {"seq": "1:100000:+1"}}},
     ["p.json: /sweep/seq", "at most 4096"]),
    ("run negative seed", ["run", "--seed", "-1", *TINY], {}, ["--seed", "-1", "[0, 9223372036854775807]"]),
    ("run two seeds", ["run", "--seed", "1", "--seed", "2", *TINY], {}, ["--seed", "once"]),
    ("run link beyond double", ["run", "--link-gbps", "1e309", *TINY], {}, ["--link-gbps", "1e309"]),
    ("run link infinite", ["run", "--link-gbps", "inf", *TINY], {}, ["--link-gbps", "inf"]),
    ("run timeout huge", ["run", "--timeout", "1e10", *TINY], {}, ["--timeout", "1e10", "1000000"]),
    ("run timeout infinite", ["run", "--timeout", "inf", *TINY], {}, ["--timeout", "inf"]),
    ("run memory limit huge", ["run", "--memory-limit", "1e10", *TINY], {}, ["--memory-limit", "1e10"]),
    ("run memory limit infinite", ["run", "--memory-limit", "inf", *TINY], {}, ["--memory-limit", "inf"]),
    ("run dump empty", ["run", "--dump", "", *TINY], {}, ["--dump", "''"]),
    ("run dump is a file", ["run", "--dump", "{f.txt}", *TINY], {"f.txt": "x"}, ["--dump", "f.txt", "output folder"]),
    ("run out is a file", ["run", *TINY, "--out", "{f.txt}"], {"f.txt": "x"}, ["--out", "f.txt", "output folder"]),
    # run: profiles
    ("profile missing", ["run", "{dir}/nope.json"], {}, ["nope.json"]),
    ("profile not JSON", ["run", "{p.json}"], {"p.json": "{\"sweep\": [1,"}, ["p.json", "JSON"]),
    ("profile number out of range", ["run", "{p.json}"], {"p.json": '{"sweep": {"seq": 7e705}}'}, ["p.json", "7e705"]),
    ("profile not an object", ["run", "{p.json}"], {"p.json": [1, 2]}, ["p.json", "object"]),
    ("profile without sweep", ["run", "{p.json}"], {"p.json": {"name": "x"}}, ["p.json", "/sweep"]),
    ("profile unknown field", ["run", "{p.json}"], {"p.json": {"sweeps": {}}}, ["/sweeps"]),
    ("profile unknown axis", ["run", "{p.json}"], {"p.json": {"sweep": {"sequence": 64}}}, ["/sweep/sequence"]),
    ("profile negative seq", ["run", "{p.json}"], {"p.json": {"sweep": {"seq": [64, -5]}}}, ["/sweep/seq/1", "-5"]),
    ("profile string cp", ["run", "{p.json}"], {"p.json": {"sweep": {"cp": "four"}}}, ["/sweep/cp", "four"]),
    ("profile empty list", ["run", "{p.json}"], {"p.json": {"sweep": {"split": []}}}, ["/sweep/split", "empty"]),
    ("profile bad split name", ["run", "{p.json}"], {"p.json": {"sweep": {"split": ["zig"]}}}, ["/sweep/split/0", "zig"]),
    ("profile causal not bool", ["run", "{p.json}"], {"p.json": {"sweep": {"causal": "yes"}}}, ["/sweep/causal", "yes"]),
    ("profile float heads", ["run", "{p.json}"], {"p.json": {"sweep": {"heads": 2.5}}}, ["/sweep/heads", "2.5"]),
    ("profile zero rounds", ["run", "{p.json}"], {"p.json": {"sweep": {"rounds": 0}}}, ["/sweep/rounds", "0"]),
    ("profile nested deep, unknown field", ["run", "{p.json}"], {"p.json": '{"sweep": ' + deep_object(DEEP) + "}"},
     ["p.json", "nested more than 128"]),
    ("profile seq nested deep", ["run", "{p.json}"], {"p.json": '{"sweep": {"seq": ' + nested(DEEP) + "}}"},
     ["p.json", "nested more than 128"]),
    ("profile nested 30k deep", ["run", "{p.json}"], {"p.json": '{"sweep": {"x": ' + nested(30000) + "}}"},
     ["p.json", "nested more than 128"]),
    ("profile duplicate key", ["run", "{p.json}"], {"p.json": '{"sweep": {"seq": 64}, "sweep": {"seq": 128}}'},
     ["p.json", '"sweep" given twice']),
    ("profile seed negative", ["run", "{p.json}"], {"p.json": {"sweep": {"seed": -1}}}, ["/sweep/seed", "-1"]),
    ("profile link infinite", ["run", "{p.json}"], {"p.json": '{"sweep": {"link_gbps": 1e309}}'}, ["p.json", "1e309"]),
    ("profile repeats as a list", ["run", "{p.json}"], {"p.json": {"sweep": {"repeats": [1, 2]}}},
     ["/sweep/repeats", "one value"]),
    ("profile rule broken", ["run", "{p.json}"],
     {"p.json": {"sweep": {**GOOD_PROFILE["sweep"], "seq": 66, "cp": 4, "split": "zigzag"}}}, ["seq", "66"]),
    # report: results files
    ("report missing file", ["report", "{dir}/none.json"], {}, ["none.json"]),
    ("report not JSON", ["report", "{r.json}"], {"r.json": "not json"}, ["r.json", "JSON"]),
    ("report number out of range", ["report", "{r.json}"],
     {"r.json": json.dumps(results()).replace('"median_ms": 1.0', '"median_ms": 1e400')}, ["r.json", "1e400"]),
    ("report wrong schema", ["report", "{r.json}"], {"r.json": results(schema="other")}, ["/schema", "other"]),
    ("report negative median", ["report", "{r.json}"], {"r.json": results(runs__0__timing__median_ms=-8.93)},
     ["r.json", "/runs/0/timing/median_ms", "-8.93"]),
    ("compare samples of 1e308", ["compare", "{r.json}", "{r.json}"],
     {"r.json": results(runs__0__timing__samples_ms=[1e308])}, ["r.json", "/runs/0/timing/samples_ms/0", "1e+308"]),
    # Issue 51: the 2.10-2.12 fields held to each other, every number to its range, accept to its sweep.
    ("report padding of 2^64 - 1", ["report", "{r.json}"],
     {"r.json": results(schema_version="2.12.0", runs__0__config__document_lengths=[64],
                        runs__0__config__padding_tokens=2**64 - 1)}, ["/runs/0/config/padding_tokens", "2^63 - 1"]),
    ("report a forward with gradients", ["report", "{r.json}"],
     {"r.json": results(runs__0__correctness={"checked": True, "passed": True,
                                              "gradients": {"passed": True}})},
     ["/runs/0/correctness/gradients", "forward"]),
    ("compare an absurd rate", ["compare", "{r.json}", "{r.json}"],
     {"r.json": results(runs__0__metrics={"attention_tflops": 1e300})}, ["/runs/0/metrics/attention_tflops", "1e5"]),
    ("accept results of another sweep", ["accept", "{a.json}", "--results", "{r.json}"],
     {"a.json": {"sweep": {**GOOD_PROFILE["sweep"], "seq": 128}, "checks": [{"metric": "correctness"}]},
      "r.json": results()}, ["r.json", "/runs/0/config/seq", "64", "own sweep"]),
    ("accept two records under one id", ["accept", "{a.json}", "--results", "{r.json}"],
     {"a.json": {**GOOD_PROFILE, "checks": [{"metric": "correctness"}]},
      "r.json": {**RESULTS_HEADER, "runs": [GOOD_RUN, GOOD_RUN]}}, ["r.json", "/runs/1/config/id", "/runs/0"]),
    ("report unknown major", ["report", "{r.json}"], {"r.json": results(schema_version="3.0.0")},
     ["/schema_version", "3.0.0"]),
    ("report bad semver", ["report", "{r.json}"], {"r.json": results(schema_version="zero")}, ["/schema_version", "zero"]),
    ("report runs not a list", ["report", "{r.json}"], {"r.json": results(runs={})}, ["/runs"]),
    ("report bad status", ["report", "{r.json}"], {"r.json": results(runs__0__status="great")},
     ["/runs/0/status", "great"]),
    ("report missing config id", ["report", "{r.json}"], {"r.json": results(runs__0__config__id=KeyError)},
     ["/runs/0/config/id"]),
    ("report negative sample", ["report", "{r.json}"], {"r.json": results(runs__0__timing__samples_ms=[1.0, -2.0])},
     ["/runs/0/timing/samples_ms/1", "-2"]),
    ("report failed without reason", ["report", "{r.json}"], {"r.json": results(runs__0__status="failed")},
     ["/runs/0/reason"]),
    ("report jsonl corrupt in the middle", ["report", "{r.jsonl}"],
     {"r.jsonl": json.dumps(GOOD_RUN) + "\n" + '{"config": {"id"' + "\n" + json.dumps(GOOD_RUN) + "\n"},
     ["r.jsonl: line 2", "only the last line may be torn"]),
    ("report results nested deep", ["report", "{r.json}"], {"r.json": nested(DEEP)}, ["r.json", "nested more than 128"]),
    ("report to a folder", ["report", "{r.json}", "-o", "{dir}"], {"r.json": results()}, ["--out", "folder"]),
    ("report negative timeline cap", ["report", "{r.json}", "--max-timelines", "-1"], {"r.json": results()},
     ["--max-timelines", "-1"]),
    # compare
    ("compare base unreadable", ["compare", "{dir}/a.json", "{r.json}"], {"r.json": results()}, ["a.json"]),
    ("compare bad metric", ["compare", "{r.json}", "{r.json}", "--metric", "speed"], {"r.json": results()}, ["speed"]),
    # analyze: traces
    ("analyze missing trace", ["analyze", "{dir}/t.json"], {}, ["t.json"]),
    ("analyze not JSON", ["analyze", "{t.json}"], {"t.json": "garbage"}, ["t.json"]),
    ("analyze number out of range", ["analyze", "{t.json}"], {"t.json": '{"traceEvents": [{"ts": 1e999}]}'},
     ["t.json", "1e999"]),
    ("analyze nested deep", ["analyze", "{t.json}"], {"t.json": '{"traceEvents": ' + nested(200000, "") + "}"},
     ["t.json", "nested more than 128"]),
    ("analyze no events", ["analyze", "{t.json}"], {"t.json": {"traceEvents": []}}, ["t.json", "no device events"]),
    ("analyze only malformed events", ["analyze", "{t.json}"],
     {"t.json": {"traceEvents": [{"ph": "X", "ts": "soon", "dur": -3, "name": 1}]}}, ["t.json", "no device events"]),
    ("analyze a folder of nothing", ["analyze", "{dir}"], {}, ["no *.json"]),
    ("analyze wrong shape", ["analyze", "{t.json}"], {"t.json": {"traceEvents": 5}}, ["t.json", "traceEvents"]),
    # model
    ("model unknown preset", ["model", "--preset", "llama4"], {}, ["--preset", "llama4"]),
    ("model tp not dividing", ["model", "--preset", "llama3-8b", "--tp", "3"], {}, ["--tp", "3"]),
    ("model zero seq", ["model", "--preset", "llama3-8b", "--seq", "0"], {}, ["--seq", "0"]),
    ("model cp beyond memory", ["model", "--preset", "llama3-8b", "--seq", "4M", "--cp", "1048576", "--split",
                                "contiguous"], {}, ["--cp", "1048576", "c^2"]),
    # packed documents (docs/design.md §3c)
    ("run documents not summing to S", ["run", "--seq", "64", "--documents", "32+16", *TINY], {},
     ["documents", "32+16", "sum to 48 tokens, not S = 64"]),
    ("run documents zero length", ["run", "--seq", "64", "--documents", "32+0+32", *TINY], {},
     ["--documents", "32+0+32", "length 2 is 0"]),
    ("run documents missing length", ["run", "--seq", "64", "--documents", "32++32", *TINY], {},
     ["--documents", "32++32", "missing"]),
    ("run documents min over max", ["run", "--seq", "64", "--documents", "uniform:9:3", *TINY], {},
     ["--documents", "uniform:9:3", "MIN (9) exceeds MAX (3)"]),
    ("run documents bad sigma", ["run", "--seq", "64", "--documents", "lognormal:8:-1", *TINY], {},
     ["--documents", "lognormal:8:-1", "SIGMA"]),
    ("run documents unknown generator", ["run", "--seq", "64", "--documents", "zipf:1:2", *TINY], {},
     ["--documents", "zipf:1:2", "unknown generator 'zipf'"]),
    ("run documents generator cannot reach S", ["run", "--seq", "2M", "--cp", "1", "--split", "contiguous",
                                                 "--documents", "fixed:1", *TINY], {},
     ["documents", "fixed:1", "cannot fill S = 2097152"]),
    ("run doc-zigzag document not cut", ["run", "--seq", "64", "--cp", "2", "--split", "doc-zigzag",
                                          "--documents", "30+34", *TINY], {},
     ["documents", "30 (document 1 of 2)", "nearest valid length is 28", "--pad-documents"]),
    ("run documents too many over the sweep", ["run", "--seq", "1M", "--cp", "1", "--split", "contiguous",
                                               "--documents", "fixed:1", "--kv-heads", "1", "--heads",
                                               ",".join(str(h) for h in range(1, 66)), "--head-dim", "8"], {},
     ["documents", "fixed:1", "65 configurations would hold more than 67108864 document lengths"]),
    # issue 51: the bound named, the subnormal's rule said, S the real tokens' sum, 128+128 suggested
    ("run documents length beyond 2^40", ["run", "--seq", "64", "--documents", "32+2048G", *TINY], {},
     ["--documents", "32+2048G", "more than 2^40 = 1099511627776 tokens"]),
    ("run documents subnormal sigma", ["run", "--seq", "64", "--documents", "lognormal:8:1e-310", *TINY], {},
     ["--documents", "lognormal:8:1e-310", "smallest normal double", "SIGMA is 0 or a number from 2.2e-308"]),
    ("run documents S is the padded sum", ["run", "--seq", "56", "--cp", "2", "--split", "doc-zigzag",
                                           "--documents", "5+30+13", "--pad-documents", *TINY], {},
     ["documents", "5+30+13", "sum to 48 tokens, not S = 56", "--pad-documents adds the padding to it"]),
    ("profile documents as numbers", ["run", "{p.json}"],
     {"p.json": {"sweep": {**GOOD_PROFILE["sweep"], "documents": [32, 32]}}},
     ["p.json", "/sweep/documents", "[32,32]", 'write one value, "32+32"']),
    ("profile documents not a string", ["run", "{p.json}"],
     {"p.json": {"sweep": {**GOOD_PROFILE["sweep"], "documents": [True]}}}, ["p.json", "/sweep/documents/0"]),
    ("profile pad_documents not a boolean", ["run", "{p.json}"],
     {"p.json": {"sweep": {**GOOD_PROFILE["sweep"], "pad_documents": "yes"}}}, ["p.json", "/sweep/pad_documents"]),
    ("model documents not summing to S", ["model", "--preset", "llama3-8b", "--seq", "128k", "--documents",
                                          "64k+32k"], {}, ["--documents", "64k+32k", "not S = 131072"]),
    ("model documents bad generator", ["model", "--preset", "llama3-8b", "--documents", "uniform:1k"], {},
     ["--documents", "uniform:1k", "uniform:MIN:MAX"]),
    # issue 51: a plan of documents over its bound, counted before it is built (ring/plan/split_scheme.hpp)
    ("run documents plan over the bound", ["run", "--seq", "4M", "--cp", "32", "--split", "striped",
                                           "--documents", "fixed:32", "--list", *TINY], {},
     ["documents", "fixed:32", "an estimated 4.", "at most 1 GiB"]),
    ("run documents plan over the bound with a backward", ["run", "--seq", "640000", "--cp", "32", "--split",
                                                           "striped", "--documents", "fixed:32", "--phase",
                                                           "fwd+bwd", "--list", *TINY], {},
     ["documents", "fixed:32", "with a backward", "at most 1 GiB"]),
    ("model documents plan over the bound", ["model", "--preset", "llama3-8b", "--seq", "512k", "--cp", "32",
                                             "--documents", "fixed:1"], {},
     ["--documents", "fixed:1", "doc-zigzag", "at most 1 GiB"]),
    # accept
    ("accept missing profile", ["accept", "{dir}/acc.json"], {}, ["acc.json"]),
    ("accept number out of range", ["accept", "{a.json}"], {"a.json": '{"sweep": {}, "checks": [{"min": 1e999}]}'},
     ["a.json", "1e999"]),
    ("accept where names no split", ["accept", "{a.json}"],
     {"a.json": {**GOOD_PROFILE, "checks": [{"metric": "correctness", "where": {"split": "diagonal"}}]}},
     ["a.json", "/checks/0/where/split", "diagonal"]),
    ("accept where seq as text", ["accept", "{a.json}"],
     {"a.json": {**GOOD_PROFILE, "checks": [{"metric": "correctness", "where": {"seq": ["64", 128]}}]}},
     ["a.json", "/checks/0/where/seq/0"]),
    ("accept checks not an object", ["accept", "{a.json}"], {"a.json": {**GOOD_PROFILE, "checks": 3}}, ["a.json"]),
]


class BadInputTable(unittest.TestCase):
    def test_at_least_thirty_cases(self):
        self.assertGreaterEqual(len(CASES), 30)

    def test_every_case_exits_2_with_one_clear_line(self):
        for name, argv, files, words in CASES:
            with self.subTest(name), tempdir() as d:
                paths = {}
                for fname, content in files.items():
                    paths[fname] = os.path.join(d, fname)
                    with open(paths[fname], "w") as f:
                        f.write(content if isinstance(content, str) else json.dumps(content))
                args = [a.replace("{dir}", d) for a in argv]
                args = [paths[a[1:-1]] if a.startswith("{") and a[1:-1] in paths else a for a in args]
                out = os.path.join(d, "out")
                if args[0] == "run" and "--out" not in args:
                    args += ["--out", out]
                p = run(*args)
                self.assertEqual(p.returncode, 2, f"{name}: rc {p.returncode}\n{p.stderr}")
                err = p.stderr.strip()
                self.assertEqual(len(err.splitlines()), 1, f"{name}: {err}")
                for w in words:
                    self.assertIn(w, err, name)
                self.assertFalse(os.path.exists(os.path.join(out, "results.json")), name)
                self.assertFalse(os.path.exists(os.path.join(out, "results.jsonl")), name)


if __name__ == "__main__":
    unittest.main()
