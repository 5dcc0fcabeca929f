#!/usr/bin/env bash
# Benchmark (issue 21): the cost model's predicted step time against the
# measured one, on this machine's CPU ranks under MPI, over DP, TP, PP,
# ZeRO, remat (also inside pipeline stages) and gradient accumulation
# plans of gpt2-tiny and gpt2-small. The prediction is
# dist-compile --explain --device-spec=SPEC's "predicted step" line; the
# measurement the trainer's median step time (steps 3 on; one thread per
# process, as the calibration ran).
#
#   bench/cost-model-accuracy.sh [WORKDIR] [SPEC] [REPEATS]
#   (default /tmp/dist-cost-bench cpu-here 3; SPEC a built-in name or a file
#   that distrt-calibrate wrote). REPEATS rounds run every plan once each;
#   measured is the fastest run's median step (the VM only adds time),
#   "runs" the range of the runs' medians.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${1:-/tmp/dist-cost-bench}
spec=${2:-cpu-here}
repeats=${3:-3}
mkdir -p "$work"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
mpirun=(mpirun --oversubscribe)
[ "$(id -u)" = 0 ] && mpirun+=(--allow-run-as-root)
for model in gpt2-tiny gpt2-small; do
  [ -f "$work/$model.onnx" ] ||
    /usr/bin/python3 "$root/examples/onnx/export.py" "$model" "$work/$model.onnx" 2> /dev/null
done
printf "%-16s %-46s %12s %12s %8s  %s\n" "model" "plan" "predicted ms" "measured ms" "error" "runs (ms)"
: > "$work/errors"
# The plans: NAME MODEL BATCH STEPS FLAGS...
plans=(
  "tiny-dp2 gpt2-tiny 8 30 --mesh=2 --parallel=dp"
  "tiny-tp2 gpt2-tiny 8 30 --mesh=2 --parallel=tp"
  "tiny-pp2 gpt2-tiny 8 30 --mesh=2 --parallel=pp --microbatches=4"
  "tiny-pp2-remat gpt2-tiny 8 30 --mesh=2 --parallel=pp --microbatches=4 --remat=full"
  "tiny-zero2 gpt2-tiny 8 30 --mesh=2 --parallel=dp --zero=2"
  "tiny-dp2-remat gpt2-tiny 8 30 --mesh=2 --parallel=dp --remat=full"
  "tiny-dp2-accum gpt2-tiny 8 30 --mesh=2 --parallel=dp --microbatches=2"
  "small-dp2 gpt2-small 4 6 --mesh=2 --parallel=dp"
  "small-tp2 gpt2-small 4 6 --mesh=2 --parallel=tp"
  "small-pp2 gpt2-small 4 6 --mesh=2 --parallel=pp --microbatches=2"
)
for plan in "${plans[@]}"; do
  read -r name model batch steps flags <<< "$plan"
  # shellcheck disable=SC2086
  "$root/build/bin/dist-compile" "$work/$model.onnx" --input-shape="idx=${batch}x64" \
    --input-shape="targets=${batch}x64" --train --optimizer=adamw --lr=1e-4 \
    --explain --device-spec="$spec" $flags -o "$work/$name" > "$work/$name.explain" 2> /dev/null
done
# Rounds: every plan once per round, so that a slow spell of the VM falls
# on all plans alike rather than on one plan's repeats.
for r in $(seq "$repeats"); do
  for plan in "${plans[@]}"; do
    read -r name model batch steps flags <<< "$plan"
    "${mpirun[@]}" -np 2 "$work/$name" --steps "$steps" --synthetic 1 \
      --log-json "$work/$name.$r.jsonl" > /dev/null
  done
done
for plan in "${plans[@]}"; do
  read -r name model batch steps flags <<< "$plan"
  /usr/bin/python3 - "$name" "$flags" "$work/$name.explain" "$work/errors" "$work/$name".*.jsonl <<'PY'
import json, re, statistics, sys
name, what, explain, errors = sys.argv[1:5]
line = [l for l in open(explain) if l.startswith("predicted step")][0]
predicted = float(re.search(r"\): ([0-9.e+-]+) ms", line).group(1))
runs = [statistics.median([json.loads(l)["ms"] for l in open(log) if '"ms"' in l][2:])
        for log in sys.argv[5:]]
# The least disturbed run: the VM only ever adds time (as timeit's min).
measured = min(runs)
error = predicted / measured - 1
open(errors, "a").write("%f\n" % error)
print("%-16s %-46s %12.2f %12.2f %+7.0f%%  %.4g-%.4g" % (
    name, what, predicted, measured, 100 * error, min(runs), max(runs)))
PY
done
/usr/bin/python3 - "$work/errors" <<'PY'
import statistics, sys
errors = [abs(float(l)) for l in open(sys.argv[1]) if l.strip()]
print("absolute error: median %.0f%%, max %.0f%% over %d plans" % (
    100 * statistics.median(errors), 100 * max(errors), len(errors)))
PY
