"""Checks that remat inside pipeline stages saves memory on every stage.

Usage: remat_stage_memory.py NONE.explain NONE.jsonl REMAT.explain REMAT.jsonl

Reads the per-stage memory estimate --explain prints ("memory of
@train_step_stage<k> ... activations X") and the trainer's measured tensor
peak (rank 0, which runs stage 0), and prints, per stage, the predicted
activations without and with remat; fails unless the first stage's
predicted activations (it holds the most micro-batches in flight) fall by
10% and its measured peak falls, and no stage's estimate grows by more than
2% (the last stage's peak is the logits' gradient, which remat does not
touch; a recomputation alive then adds a little).
"""
import json
import re
import sys


def stages(path):
    out = {}
    pattern = re.compile(r"memory of @\w+_stage(\d+) per rank .*activations ([0-9.]+)")
    with open(path) as f:
        for line in f:
            m = pattern.search(line)
            if m:
                out[int(m.group(1))] = float(m.group(2))
    if not out:
        sys.exit(f"{path}: no per-stage memory lines")
    return out


def measured_peak(path):
    with open(path) as f:
        peaks = [json.loads(line)["tensor_peak_mib"] for line in f if line.strip()]
    if not peaks:
        sys.exit(f"{path}: no steps")
    return max(peaks)


def main():
    none_explain, none_log, remat_explain, remat_log = sys.argv[1:5]
    before, after = stages(none_explain), stages(remat_explain)
    if before.keys() != after.keys():
        sys.exit(f"stages differ: {sorted(before)} vs {sorted(after)}")
    ok = True
    for k in sorted(before):
        print(f"stage {k}: activations {before[k]:.3f} -> {after[k]:.3f} MiB")
        if after[k] > before[k] * 1.02:
            print(f"FAIL: stage {k} keeps more than 2% more with remat")
            ok = False
    if not after[0] < before[0] * 0.9:
        print("FAIL: stage 0's activations fall by less than 10%")
        ok = False
    peak_before, peak_after = measured_peak(none_log), measured_peak(remat_log)
    print(f"measured peak of rank 0: {peak_before:.1f} -> {peak_after:.1f} MiB")
    if not peak_after < peak_before:
        print("FAIL: the measured peak does not fall")
        ok = False
    print("ok" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
