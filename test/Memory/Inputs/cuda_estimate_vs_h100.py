"""The predicted device peak (dist-compile --explain) against the H100's
measured gpu_mem_peak_mib for gpt2-tiny's AdamW trainer (the gpu-check
summary of 2026-11-27), within 10%."""
import re
import sys

explain, checks = sys.argv[1], sys.argv[2]
predicted = None
for line in open(explain):
    m = re.search(r"\(CUDA device memory\): peak ([0-9.]+) MiB = (.*)", line)
    if m:
        predicted = float(m.group(1))
        parts = [float(x) for x in re.findall(r" ([0-9.]+)(?: \+|$)", m.group(2))]
        if len(parts) != 6 or abs(sum(parts) - predicted) > 0.01:
            sys.exit("the parts %s do not add up to the peak %s" % (parts, predicted))
if predicted is None:
    sys.exit("no '(CUDA device memory): peak' line in " + explain)
measured = None
for line in open(checks):
    m = re.search(r"-> memory gpt2-tiny: PASS ([0-9.]+) MiB", line)
    if m:
        measured = float(m.group(1))
if measured is None:
    sys.exit("no measured gpt2-tiny memory row in " + checks)
err = abs(predicted - measured) / measured
print("gpt2-tiny adamw on the H100: measured %.3f MiB, predicted %.3f MiB: %s (%.2f%%)"
      % (measured, predicted, "ok" if err <= 0.10 else "OFF BY MORE THAN 10%", 100 * err))
