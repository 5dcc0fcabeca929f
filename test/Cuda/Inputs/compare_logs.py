"""Compares two trainers' JSON step logs: compare_logs.py A.jsonl B.jsonl TOL

Prints the worst relative difference of loss and grad_norm over the steps
and exits 1 when it is above TOL or the steps differ (a missing, extra or
non-finite step fails too).
"""
import json
import math
import sys


def read(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


a, b, tol = read(sys.argv[1]), read(sys.argv[2]), float(sys.argv[3])
if [r["step"] for r in a] != [r["step"] for r in b] or not a:
    print("steps differ: %s vs %s" % ([r["step"] for r in a], [r["step"] for r in b]))
    sys.exit(1)
worst = 0.0
for ra, rb in zip(a, b):
    for key in ("loss", "grad_norm"):
        x, y = float(ra[key]), float(rb[key])
        if not (math.isfinite(x) and math.isfinite(y)):
            print("step %d: %s is not finite (%r, %r)" % (ra["step"], key, x, y))
            sys.exit(1)
        worst = max(worst, abs(x - y) / max(abs(y), 1e-30))
print("%d steps, worst relative difference %s" % (len(a), "below tolerance" if worst <= tol else "%.3g" % worst))
sys.exit(0 if worst <= tol else 1)
