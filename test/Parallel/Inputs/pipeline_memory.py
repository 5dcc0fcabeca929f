"""Each stage's predicted activation memory (dist-compile --explain) as the
micro-batches of a fixed size grow from M to 2M: GPipe keeps every
micro-batch's activations (grows), 1F1B at most S of them (flat).

    pipeline_memory.py GPIPE_M GPIPE_2M ONEF_M ONEF_2M   (explain outputs)
"""
import re
import sys


def activations(path):
    return [float(x) for x in re.findall(
        r"memory of @train_step_stage\d+ .* activations ([0-9.]+)", open(path).read())]


gpipe, gpipe2, onef, onef2 = map(activations, sys.argv[1:5])
ok = len(gpipe) == len(onef) > 1
ok = ok and all(b > 1.4 * a for a, b in zip(gpipe, gpipe2))
ok = ok and all(abs(b - a) <= 0.01 * a for a, b in zip(onef, onef2))
print("%s: activations per stage (MiB) GPipe %s -> %s, 1F1B %s -> %s" % (
    "ok" if ok else "FAIL", gpipe, gpipe2, onef, onef2))
sys.exit(0 if ok else 1)
