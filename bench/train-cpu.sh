#!/usr/bin/env bash
# Benchmark (issue 5): one AdamW training step of a dist-compile --train
# executable against PyTorch 1.13 eager on the same model, batch and thread
# count, measured in this one run; and the peak memory (max RSS) of both
# processes. Models: gpt2-tiny (batch 2, seq 64) and gpt2-small (batch 4,
# seq 128). Each time is the median over STEPS steps after two warm-up
# steps, on both sides (ours: the trainer's logged ms of steps 3..STEPS+2).
#
#   bench/train-cpu.sh [WORKDIR] [THREADS] [STEPS] [MODELS]
#   (default /tmp/dist-train-bench 1 5 "gpt2-tiny gpt2-small")
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${1:-/tmp/dist-train-bench}
threads=${2:-1}
steps=${3:-5}
models=${4:-gpt2-tiny gpt2-small}
mkdir -p "$work"
export OPENBLAS_NUM_THREADS=$threads OMP_NUM_THREADS=$threads

for model in $models; do
  onnx="$work/$model-static.onnx"
  [ -f "$onnx" ] || /usr/bin/python3 "$root/examples/onnx/export.py" "$model" "$onnx" --static 2>/dev/null
  start=$(date +%s.%N)
  "$root/build/bin/dist-compile" "$onnx" --train --optimizer=adamw --lr=1e-4 -o "$work/$model-trainer"
  end=$(date +%s.%N)
  inputs="$work/$model-inputs"
  mkdir -p "$inputs"
  baseline=$(/usr/bin/python3 "$root/bench/train_baseline.py" "$model" "$threads" "$steps" "$inputs")
  log="$work/$model-log.jsonl"
  "$work/$model-trainer" --steps "$((steps + 2))" --input "idx=$inputs/idx.npy" \
    --input "targets=$inputs/targets.npy" --log-json "$log" > "$work/$model-out.txt"
  peak=$(sed -n 's/.*peak mem \([0-9.]*\) MiB$/\1/p' "$work/$model-out.txt" | tail -1)
  /usr/bin/python3 - "$model" "$threads" "$start" "$end" "$log" "$peak" "$baseline" <<'PY'
import json, statistics, sys
model, threads, start, end, log, peak, baseline = sys.argv[1:8]
base = dict(line.split(": ") for line in baseline.splitlines())
ours = statistics.median(json.loads(l)["ms"] for l in list(open(log))[2:])
pt, pt_peak = float(base["pytorch"]), float(base["pytorch-peak-mib"])
print("%s (%s thread%s): compile %.1f s; train step dist %.1f ms, PyTorch "
      "eager %.1f ms, dist / PyTorch = %.2f; peak memory dist %.0f MiB, "
      "PyTorch %.0f MiB, ratio %.2f" % (
          model, threads, "" if threads == "1" else "s",
          float(end) - float(start), ours, pt, ours / pt, float(peak),
          pt_peak, float(peak) / pt_peak))
PY
done
