#!/bin/bash
# The AdamW step of gpt2-small (batch 4 x 128, one rank) with float32 and
# --precision=bf16 products on each CPU gemm library distrt has, all in one
# run on this machine: float32 on OpenBLAS (the default) and on oneDNN
# (DISTRT_CPU_GEMM=onednn), bf16 widened to float32 for OpenBLAS
# (DISTRT_CPU_GEMM=openblas) and bf16 as distrt chooses by default (oneDNN
# where the CPU has bfloat16 instructions). Prints the CPU's relevant
# flags, the library each run used, and the median step time of steps 3..N
# as a ratio to float32 on OpenBLAS.
# usage: bench/cpu-gemm-backends.sh [WORKDIR] [THREADS] [STEPS]   (default /tmp/gemm-bench 1 5)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/gemm-bench}
threads=${2:-1}
steps=${3:-5}
mkdir -p "$work"
export OPENBLAS_NUM_THREADS=$threads OMP_NUM_THREADS=$threads
[ -f "$work/gpt2-small.onnx" ] ||
  /usr/bin/python3 "$root/examples/onnx/export.py" gpt2-small "$work/gpt2-small.onnx" --static > /dev/null
for precision in fp32 bf16; do
  "$root/build/bin/dist-compile" "$work/gpt2-small.onnx" --train --optimizer=adamw \
    --precision=$precision -o "$work/trainer-$precision"
done
flags=$(grep -o -w 'avx2\|avx512f\|avx512_bf16\|amx_bf16\|avx512_fp16' /proc/cpuinfo | sort -u | tr '\n' ' ')
echo "CPU: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1); flags: $flags; $threads thread(s)"
echo "| products | library | ms/step | / float32 OpenBLAS |"
echo "|---|---|---|---|"
base=""
for config in "fp32:openblas" "fp32:onednn" "bf16:openblas" "bf16:auto"; do
  precision=${config%%:*} mode=${config#*:}
  DISTRT_CPU_GEMM=$mode DISTRT_LOG_LEVEL=info "$work/trainer-$precision" --steps "$steps" \
    --synthetic 1 --log-json "$work/$precision-$mode.jsonl" > "$work/$precision-$mode.out" 2> "$work/$precision-$mode.err"
  ms=$(python3 -c 'import json, statistics, sys; print("%.0f" % statistics.median(json.loads(l)["ms"] for l in list(open(sys.argv[1]))[2:]))' "$work/$precision-$mode.jsonl")
  [ -n "$base" ] || base=$ms
  kind=$([ "$precision" = fp32 ] && echo float32 || echo bfloat16)
  library=$(sed -nE "s/.*$kind products: (oneDNN|widened to float32 on OpenBLAS|OpenBLAS).*/\1/p" "$work/$precision-$mode.err" | head -1)
  echo "| $precision (DISTRT_CPU_GEMM=$mode) | ${library:-OpenBLAS} | $ms | $(awk -v a="$ms" -v b="$base" 'BEGIN { printf "%.2f", a / b }') |"
done
