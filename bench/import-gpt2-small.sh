#!/usr/bin/env bash
# Benchmark: importing GPT-2 small (124M parameters, 12 layers, width 768,
# vocab 50257, context 1024; random init) with dist-opt.
# Reports wall time and peak memory of the import, and peak memory as a
# multiple of the model file's size. Targets (issue 3): < 5 s, < 3x file size.
#
#   bench/import-gpt2-small.sh [WORKDIR]     (needs build/bin/dist-opt)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${1:-/tmp/dist-bench}
mkdir -p "$work"
model="$work/gpt2-small.onnx"
if [ ! -f "$model" ]; then
  echo "exporting GPT-2 small with PyTorch (about a minute) ..."
  /usr/bin/python3 "$root/examples/onnx/export.py" gpt2-small "$model" 2>/dev/null
fi
size=$(stat -c %s "$model")
# Measures import (parse, convert, verify, raise coarse ops) and writing the
# module as bytecode. Text output would add MLIR's printer, which renders
# every weight as a hex string in memory (about 2x the weights) even when
# asked to elide it.
/usr/bin/time -f "%e %M" -o "$work/time.txt" \
  "$root/build/bin/dist-opt" "$model" --input-shape idx=4x128 \
  --input-shape targets=4x128 --emit-bytecode -o "$work/gpt2-small.mlirbc"
read -r seconds rss_kb < "$work/time.txt"
python3 - "$seconds" "$rss_kb" "$size" <<'PY'
import sys
seconds, rss_kb, size = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
peak = rss_kb * 1024
print("gpt2-small import: %.2f s, peak RSS %.0f MiB, model file %.0f MiB, "
      "peak / file = %.2f" % (seconds, peak / 2**20, size / 2**20, peak / size))
PY
