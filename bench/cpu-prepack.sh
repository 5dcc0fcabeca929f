#!/bin/bash
# Would pre-packed weights speed up the CPU's products? gpt2-small's five
# product shapes (rows = batch 4 x seq 128) on oneDNN with the weights as
# distrt passes them against the same weights reordered once into oneDNN's
# preferred layout, float32 and bfloat16, with OpenBLAS's sgemm beside
# (bench/prepack/prepack.cpp; one thread). Needs libdnnl-dev and OpenBLAS
# (scripts/setup.sh installs both).
# usage: bench/cpu-prepack.sh [WORKDIR]   (default /tmp/prepack-bench)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/prepack-bench}
mkdir -p "$work"
g++ -O2 -std=c++17 "$root/bench/prepack/prepack.cpp" -o "$work/prepack" -ldnnl -lopenblas
flags=$(grep -o -w 'avx2\|avx512f\|avx512_bf16\|amx_bf16' /proc/cpuinfo | sort -u | tr '\n' ' ')
echo "CPU: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1); flags: $flags; 1 thread"
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$work/prepack"
