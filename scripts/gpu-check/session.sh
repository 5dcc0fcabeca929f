#!/usr/bin/env bash
# One GPU session in one command, within a time budget: the checks, then the
# gpt2-small benchmark, then gpt2-xl if time is left, each phase's results
# packed into one file of DEST as soon as the phase ends (so that a session
# cut short still brings back what it measured). For the device tool, whose
# sessions have 15 minutes of device time, start-up included, and at most
# 10 minutes a command:
#
#   bash OUTDIR/session.sh DEST [BUDGET_SECONDS]      (default 540)
#   # run(carry=["build-gpucheck"], timeout_s=600,
#   #     command='bash build-gpucheck/session.sh $OUT')
#
# DEST gets: session.txt (what ran, each phase's time and status),
# checks.tar.gz (run.sh --no-bench: results/, summary.txt),
# bench-small.tar.gz (gpt2-small fp32 and bf16: bench.md and every log,
# the per-kernel times of ours included), bench-xl.tar.gz (gpt2-xl bf16,
# only when at least XL_MIN seconds (default 200) are left).
# A phase gets the time left, minus a margin for packing; BENCH_STEPS
# (default 5) and BENCH_WARMUP (default 2) are shorter than bench.sh's own
# defaults to fit. Environment as run.sh and bench.sh (GPU_CHECK_FAKE_CUDA=1
# runs the CPU twins: the script's logic without a GPU).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -ge 1 ] || { sed -n '2,22p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
dest=$1
budget=${2:-540}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
start=$(date +%s)
log=$dest/session.txt
: > "$log"
say() { echo "session: $*" | tee -a "$log"; }
left() { echo $((budget - ($(date +%s) - start))); }
work=$(mktemp -d "${TMPDIR:-/tmp}/gpu-session.XXXXXX")
trap 'rm -rf "$work"' EXIT

# phase NAME SECONDS CMD...: runs CMD with at most SECONDS (it gets TERM,
# then KILL 10 s later), prints its output, packs $work/NAME into
# DEST/NAME.tar.gz. Returns CMD's status.
phase() {
  local name=$1 limit=$2 t0 rc
  shift 2
  mkdir -p "$work/$name"
  t0=$(date +%s)
  say "$name: start, ${limit}s at most ($(left)s of the budget left)"
  # (run.sh empties its results folder first: the console goes beside it.)
  GPU_CHECK_RESULTS=$work/$name timeout -k 10 "$limit" "$@" 2>&1 | tee "$work/$name.console.txt"
  rc=${PIPESTATUS[0]}
  say "$name: status $rc$([ "$rc" = 124 ] && echo ' (stopped by the budget)') after $(($(date +%s) - t0))s"
  mkdir -p "$work/$name"
  mv "$work/$name.console.txt" "$work/$name/console.txt"
  tar -czf "$dest/$name.tar.gz" -C "$work" "$name"
  return "$rc"
}

margin=15
say "$(cat "$here/BUILD.txt" 2>/dev/null | head -2 | tr '\n' ' ')"
command -v nvidia-smi > /dev/null && say "$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader)"

GPU_CHECK_TIMEOUT=${GPU_CHECK_TIMEOUT:-60} phase checks $(( $(left) * 2 / 5 )) bash "$here/run.sh" --no-bench
rc=$?
if [ "$rc" = 2 ]; then say "no GPU: stopping"; exit 2; fi
status=$rc

small=$(grep -x 'gpt2-small-.*' "$here/bench/RUNS.txt" 2>/dev/null | tr '\n' ' ')
if [ -n "$small" ] && [ "$(left)" -gt 60 ]; then
  BENCH_RUNS=$small BENCH_STEPS=${BENCH_STEPS:-5} BENCH_WARMUP=${BENCH_WARMUP:-2} \
    BENCH_TIMEOUT=${BENCH_TIMEOUT:-120} phase bench-small $(( $(left) - margin )) bash "$here/bench.sh" "$here"
  [ $? -ne 0 ] && status=1
else
  say "bench-small: skipped ($(left)s left, runs: ${small:-none})"
fi

if ! grep -qx 'gpt2-xl-bf16' "$here/bench/RUNS.txt" 2>/dev/null; then
  say "bench-xl: no gpt2-xl-bf16 run in this folder"
elif [ "$(left)" -ge "${XL_MIN:-200}" ]; then
  BENCH_RUNS=gpt2-xl-bf16 BENCH_STEPS=3 BENCH_WARMUP=2 BENCH_TIMEOUT=${BENCH_TIMEOUT:-120} \
    phase bench-xl $(( $(left) - margin )) bash "$here/bench.sh" "$here"
  [ $? -ne 0 ] && status=1
else
  say "bench-xl: skipped ($(left)s left, XL_MIN ${XL_MIN:-200})"
fi
say "done in $(($(date +%s) - start))s, status $status"
exit "$status"
