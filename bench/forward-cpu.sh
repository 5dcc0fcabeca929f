#!/usr/bin/env bash
# Benchmark (issue 4): forward time of executables built by dist-compile
# against PyTorch 1.13 eager and onnxruntime on the same ONNX file, inputs
# and thread count, all measured in this one run; and dist-compile's compile
# time. Models: gpt2-tiny (batch 2, seq 64) and gpt2-small (batch 4, seq 128).
# Each time is the median of RUNS forwards after a warm-up.
#
#   bench/forward-cpu.sh [WORKDIR] [THREADS] [RUNS]   (default /tmp/dist-bench 1 20)
#
# Needs build/ (scripts/setup.sh) and .venv with onnxruntime.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${1:-/tmp/dist-bench}
threads=${2:-1}
runs=${3:-20}
python="$root/.venv/bin/python3"
mkdir -p "$work"
# Our loops are single-threaded; OpenBLAS (the gemms) gets the same thread
# count as PyTorch and onnxruntime.
export OPENBLAS_NUM_THREADS=$threads OMP_NUM_THREADS=$threads

for model in gpt2-tiny gpt2-small; do
  onnx="$work/$model-static.onnx"
  if [ ! -f "$onnx" ]; then
    "$python" "$root/examples/onnx/export.py" "$model" "$onnx" --static 2>/dev/null
  fi
  start=$(date +%s.%N)
  "$root/build/bin/dist-compile" "$onnx" -o "$work/$model"
  end=$(date +%s.%N)
  inputs="$work/$model-inputs"
  mkdir -p "$inputs"
  baselines=$("$python" "$root/bench/forward_baselines.py" "$model" "$onnx" \
    "$threads" "$runs" "$inputs")
  ours=$("$work/$model" --input "idx=$inputs/idx.npy" \
    --input "targets=$inputs/targets.npy" --benchmark "$runs" |
    sed -n 's/^forward: \([0-9.]*\) ms.*/\1/p')
  python3 - "$model" "$threads" "$start" "$end" "$ours" "$baselines" <<'PY'
import sys
model, threads, start, end, ours = sys.argv[1:6]
base = dict(line.split(": ") for line in sys.argv[6].splitlines())
ours, pt, ort = float(ours), float(base["pytorch"]), float(base["onnxruntime"])
print("%s (%s thread%s): compile %.1f s; forward dist %.1f ms, PyTorch eager "
      "%.1f ms, onnxruntime %.1f ms; dist / PyTorch = %.2f, dist / "
      "onnxruntime = %.2f" % (model, threads, "" if threads == "1" else "s",
                              float(end) - float(start), ours, pt, ort,
                              ours / pt, ours / ort))
PY
done
