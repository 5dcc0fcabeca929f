"""Checks each --log-json line's "mfu" against the definition:
flops_per_step / (ms / 1000) / peak, within the rounding of the printed
numbers (relative 1e-4).

  check_mfu.py LOG.jsonl FLOPS_PER_STEP PEAK_FLOPS
"""
import json
import sys

log, flops, peak = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
lines = [json.loads(line) for line in open(log)]
for entry in lines:
    want = flops / (entry["ms"] / 1000.0) / peak
    got = entry.get("mfu")
    if got is None or abs(got - want) > 1e-4 * want:
        sys.exit(f"step {entry['step']}: mfu {got}, expected {want}")
print(f"{len(lines)} steps, mfu = flops / time / peak")
