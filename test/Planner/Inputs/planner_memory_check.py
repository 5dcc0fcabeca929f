"""Compares the planner's memory figure (--explain --device-spec's
"tensors at most X MiB per rank", an estimate from the dist dialect's
liveness that rules plans out under --memory-per-device) with the peak the
trainer measured (--log-json "tensor_peak_mib").

usage: planner_memory_check.py NAME EXPLAIN_OUTPUT LOG_JSONL
Exits 1 when they differ by more than 10%.
"""
import json
import re
import sys

name, explain, log = sys.argv[1:4]
m = re.search(r"tensors at most ([0-9.]+) MiB per rank", open(explain).read())
measured = max((json.loads(line).get("tensor_peak_mib", -1) for line in open(log)),
               default=-1)
if not m or measured <= 0:
    print("%s: FAILED (no estimate or no measured peak)" % name)
    sys.exit(1)
predicted = float(m.group(1))
error = abs(predicted - measured) / measured
ok = error <= 0.10
print("%s: planner %.3f MiB, measured %.3f MiB, %s by %.1f%% %s" %
      (name, predicted, measured, "over" if predicted >= measured else "under",
       100 * error, "ok" if ok else "FAILED"))
sys.exit(0 if ok else 1)
