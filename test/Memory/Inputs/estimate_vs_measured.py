"""Compares dist-compile --explain's predicted peak of host tensor memory
with the peak the trainer measured (its --log-json "tensor_peak_mib", the
most the counted allocations held at once over the run).

usage: estimate_vs_measured.py NAME EXPLAIN_OUTPUT LOG_JSONL
Prints NAME, both figures and their relative difference; exits 1 when it
exceeds 10% or either is missing.
"""
import json
import re
import sys

name, explain, log = sys.argv[1:4]
text = open(explain).read()
m = re.search(r"memory of @\S+ per rank \(host tensors\): peak ([0-9.]+) MiB = "
              r"parameters ([0-9.]+) \+ optimizer state ([0-9.]+) \+ inputs and outputs "
              r"([0-9.]+) \+ activations ([0-9.]+) \+ gradients ([0-9.]+) \+ workspace ([0-9.]+)",
              text)
entries = [json.loads(line) for line in open(log)]
measured = max((e.get("tensor_peak_mib", -1) for e in entries), default=-1)
if not m or measured <= 0:
    print("%s: FAILED (no estimate or no measured peak)" % name)
    sys.exit(1)
predicted = float(m.group(1))
parts = sum(float(m.group(i)) for i in range(2, 8))
error = abs(predicted - measured) / measured
ok = error <= 0.10 and abs(parts - predicted) <= 0.002 * max(predicted, 1)
print("%s: predicted %.3f MiB, measured %.3f MiB, %s by %.1f%% %s" %
      (name, predicted, measured, "over" if predicted >= measured else "under",
       100 * error, "ok" if ok else "FAILED"))
sys.exit(0 if ok else 1)
