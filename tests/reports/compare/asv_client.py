"""asv's step detection (airspeed velocity's asv.step_detect, as asv's own regression finder calls it)
on series given as JSON on stdin: {"KEY": {"y": [...], "higher_is_better": bool}, ...}. For each
series it prints, as one JSON document on stdout:
- steps: detect_steps(y), the piecewise-constant fit, as [left, right, value, min, error] per piece;
- regressions: detect_regressions(detect_steps(y')), where y' is y negated when higher is better
  (detect_regressions reports upward steps only), as [last night before, first night after,
  value before, best value after] per regression; [] when it finds none.

Runs in a process of its own with the folder `scripts/pypi-deps.sh tools` installed first on its
PYTHONPATH (tests/pylib/ringbench_test.py: pytools_run)."""
import importlib.metadata
import json
import sys

from asv import step_detect


def main():
    series = json.load(sys.stdin)
    out = {"asv_version": importlib.metadata.version("asv"), "series": {}}
    for key, s in series.items():
        y = [float(v) for v in s["y"]]
        worse_up = [-v for v in y] if s["higher_is_better"] else y
        _, _, regressions = step_detect.detect_regressions(step_detect.detect_steps(worse_up))
        out["series"][key] = {
            "steps": [list(piece) for piece in step_detect.detect_steps(y)],
            "regressions": [list(r) for r in regressions or []],
        }
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
