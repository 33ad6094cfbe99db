#!/usr/bin/env python3
"""The nightly gate's experiments (docs/compare.md, "A/B experiments"), rerunnable: TRIES A/B pairs of
one binary against itself (`ringbench ab`), the new build made PCT% slower in every K-th configuration
(`--inject-fault-new slow:PCT@...`; PCT 0 is an A/A run). Each pair is compared as the nightly does,
and the configurations it calls SLOWER are measured again as a fresh pair and compared with
`--repeat-of`, the new build of the repeat planted in the same configurations. Prints one line per
try and a summary: planted configurations found (SLOWER in the pair and again in the repeat), and
verdicts on unplanted ones other than SAME and NOISY.

  scripts/ab-trials.py [--bin BIN] [--tries 10] [--plant 15] [--every 3] [--out DIR] [-- RUN FLAGS]

RUN FLAGS replace the default sweep (12 cpu configurations, 12 rounds of one sample; --c1-all, so that
every configuration is measured and planting by index finds it). Exit 0 when every
try found every planted configuration and called no unplanted one SLOWER or FASTER; else 1."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SWEEP = ["--seq", "256,512,768", "--cp", "1,2", "--split", "zigzag,contiguous", "--variant", "ring", "--heads", "4",
         "--kv-heads", "2", "--head-dim", "32", "--dtype", "float32", "--repeats", "12", "--rounds", "12",
         "--warmup", "1", "--require-power", "0.05", "--c1-all"]


def ab(binary, flags, out, planted_indices, pct):
    cmd = [binary, "ab", binary, *flags, "--out", out]
    if pct > 0 and planted_indices:
        cmd += ["--inject-fault-new", f"slow:{pct:g}@" + ",".join(str(i) for i in planted_indices)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"ab exited {p.returncode}: {p.stderr.strip()[-400:]}")


def compare(binary, out, *extra):
    p = subprocess.run([binary, "compare", f"{out}/base/results.json", f"{out}/new/results.json", "--json", *extra],
                       capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise RuntimeError(f"compare exited {p.returncode}: {p.stderr.strip()[-400:]}")
    return json.loads(p.stdout)


MAX_CONFIGS = 240  # planting names indices; a sweep of more configurations plants only these


def trial(binary, flags, out, every, pct):
    """One pair and, for what it calls SLOWER, the repeat. Returns (configurations, planted ids,
    planted ids found, unplanted ids called changed, planted ids missed, unplanted ids SLOWER in the
    repeat too: what would fail a night)."""
    plant = list(range(0, MAX_CONFIGS, every)) if pct > 0 else []
    ab(binary, flags, f"{out}/pair", plant, pct)
    first = compare(binary, f"{out}/pair")
    runs = first["runs"]  # in the sweep's order, which planting indexes
    planted = {runs[i]["id"] for i in plant if i < len(runs)}
    with open(f"{out}/first.json", "w") as f:
        json.dump(first, f)
    slower = [r["id"] for r in runs if r["verdict"] == "SLOWER"]
    confirmed = set()
    if slower:
        # As scripts/nightly.sh does: a fresh pair of the SLOWER ones (--only keeps the sweep's
        # order), its new build planted where the first was.
        again = [k for k, i in enumerate(slower) if i in planted]
        ab(binary, [*flags, "--only", ",".join(slower)], f"{out}/repeat", again, pct)
        rep = compare(binary, f"{out}/repeat", "--repeat-of", f"{out}/first.json")
        confirmed = {r["id"] for r in rep["runs"] if r["verdict"] == "SLOWER"}
    found = planted & confirmed
    false_calls = [(r["id"], r["verdict"], round(r["change"] or 0, 3)) for r in runs
                   if r["id"] not in planted and r["verdict"] in ("SLOWER", "FASTER")]
    missed = [(r["id"], r["verdict"], r["p_value"]) for r in runs if r["id"] in planted and r["id"] not in found]
    return len(runs), planted, found, false_calls, missed, sorted(confirmed - planted)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "build/ci/bench/ringbench"))
    ap.add_argument("--tries", type=int, default=10)
    ap.add_argument("--plant", type=float, default=15, help="PCT slower in the new build (0: A/A)")
    ap.add_argument("--every", type=int, default=3, help="plant every K-th configuration")
    ap.add_argument("--out", default=None)
    ap.add_argument("flags", nargs="*")
    a = ap.parse_args()
    flags = a.flags or SWEEP
    out = a.out or tempfile.mkdtemp(prefix="ab-trials-")
    good = 0
    totals = {"planted": 0, "found": 0, "false": 0, "compared": 0, "failed": 0}
    for t in range(a.tries):
        d = os.path.join(out, f"try{t}")
        os.makedirs(d, exist_ok=True)
        n, planted, found, false_calls, missed, false_failures = trial(a.bin, flags, d, a.every, a.plant)
        totals["planted"] += len(planted)
        totals["found"] += len(found)
        totals["false"] += len(false_calls)
        totals["compared"] += n
        totals["failed"] += len(false_failures)
        ok = found == planted and not false_calls
        good += ok
        print(f"try {t + 1}: {len(found)}/{len(planted)} planted found (SLOWER, repeated); "
              f"{len(false_calls)} unplanted called changed{': ' + str(false_calls) if false_calls else ''}"
              f"{'; missed ' + str(missed) if missed else ''}"
              f"{'; unplanted SLOWER in the repeat too ' + str(false_failures) if false_failures else ''}", flush=True)
    print(f"{good}/{a.tries} tries found every planted configuration and no false verdict; "
          f"{totals['found']}/{totals['planted']} planted found, {totals['false']} false verdicts over "
          f"{totals['compared']} comparisons, {totals['failed']} of them SLOWER again in the repeat ({out})")
    return 0 if good == a.tries else 1


if __name__ == "__main__":
    sys.exit(main())
