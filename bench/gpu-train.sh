#!/usr/bin/env bash
# GPU training benchmark: one AdamW step of GPT-2 models, our --target=cuda
# trainer against PyTorch on the same GPU in the same run. The runs
# (scripts/gpu-check.sh builds one trainer for each, listed in
# bench/RUNS.txt):
#   gpt2-small-fp32  gpt2-small (124M) at batch 8 x seq 1024, float32: against
#                    PyTorch eager fp32 (TF32 off for matmul and cuDNN), eager
#                    with TF32, torch.compile (fp32); ours also with
#                    --allow-tf32, and built with --fuse-attention=true
#                    (trainer-attn.xz; decision 62), its step time and
#                    memory printed beside the table
#   gpt2-small-bf16  the same with --precision=bf16: against PyTorch eager and
#                    torch.compile under torch.autocast(bfloat16); ours also
#                    built with --remat=none (trainer-remat-none.xz: the CUDA
#                    default is --remat=cheap)
#   gpt2-xl-bf16     GPT-2 XL (1.56B: width 1600, 48 layers, 25 heads) at
#                    batch 2 x seq 1024, bf16, against the same two
# Step time (median after warm-up), tokens/s, MFU (formula in the report),
# peak device memory, ours / each baseline, and the top 10 kernels (ours
# with nsys when it is installed, else from the trainer's --trace; PyTorch's
# first eager mode with torch.profiler).
#
# scripts/gpu-check.sh OUTDIR builds the trainers (bench/RUN/trainer.xz: no
# weights, they are 0.5 to 6 GB) and copies this script to OUTDIR/bench.sh.
# On the GPU machine (python3 with numpy and PyTorch):
#
#   bash OUTDIR/bench.sh [CHECKDIR]      (CHECKDIR: default the script's folder)
#
# The weights are random normal(0, 0.02), written there from the trainer's
# --help (tools/random_safetensors.py) into a temporary folder. Results:
# CHECKDIR/results/bench.md (every run's table and the command) and
# bench-RUN-*.txt/json/md.
# Environment: BENCH_RUNS (the runs to do, e.g. "gpt2-xl-bf16"; default
# every one in bench/RUNS.txt), BENCH_TORCH_MODES (PyTorch's modes instead
# of each run's, e.g. "eager-bf16"), GPU_CHECK_RESULTS (the results folder
# instead of CHECKDIR/results), BENCH_STEPS (timed steps, default 20),
# BENCH_WARMUP (default 3), BENCH_TIMEOUT (seconds per run, default 300; a
# run of ours stopped by it keeps the steps it logged), PYTHON,
# GPU_CHECK_FAKE_CUDA=1 (the CPU twin's small stand-in trainers and PyTorch
# on the CPU: the script's logic only).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dir=${1:-$here}
dir=$(cd "$dir" && pwd)
if [ ! -f "$dir/bench/RUNS.txt" ]; then
  echo "bench: $dir/bench/RUNS.txt not found: run the copy in a folder built by scripts/gpu-check.sh" >&2
  exit 1
fi
res=${GPU_CHECK_RESULTS:-$dir/results}
mkdir -p "$res"
# The first python3 with numpy and torch (PYTHON if set).
PY=${PYTHON:-}
if [ -z "$PY" ] || ! "$PY" -c 'import numpy, torch' 2> /dev/null; then
  PY=""
  for p in python3 /usr/bin/python3 python; do
    if "$p" -c 'import numpy, torch' 2> /dev/null; then PY=$p; break; fi
  done
  [ -n "$PY" ] || { echo "bench: no python3 with numpy and torch found (set PYTHON)" >&2; exit 1; }
fi
steps=${BENCH_STEPS:-20}
warm=${BENCH_WARMUP:-3}
T=${BENCH_TIMEOUT:-300}
fake=${GPU_CHECK_FAKE_CUDA:-0}
[ "$fake" = 0 ] && fake=""
runs=${BENCH_RUNS:-$(cat "$dir/bench/RUNS.txt")}
work=$(mktemp -d "${TMPDIR:-/tmp}/gpu-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
tools=$dir/tools
twin=${GPU_CHECK_CPU_TWIN:-${dir%/}-cpu}
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -1)
[ -n "$fake" ] && echo "bench: GPU_CHECK_FAKE_CUDA: the CPU stand-ins in $twin/bench (not a benchmark)"

# unpack XZ FILE: an xz-compressed trainer (xz, or Python's lzma).
unpack() {
  if command -v xz > /dev/null; then
    xz -dc "$1" > "$2"
  else
    "$PY" -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' \
      "$1" "$2"
  fi
}

# other_build ALT FLAG: within bench_run, the run's trainer built with FLAG
# (bench/RUN/trainer-ALT.xz) for $((warm + 10)) steps on the same weights,
# logged to results/bench-RUN-ours-ALT.{jsonl,txt}.
other_build() {
  local y=$work/$run/trainer-$1
  if [ -n "$fake" ]; then cp "$x" "$y"; else unpack "$b/trainer-$1.xz" "$y"; fi
  chmod +x "$y"
  echo "== ours $2: $((warm + 10)) steps"
  timeout -s TERM "$T" "$y" --steps $((warm + 10)) --synthetic 0 --weights "$x.safetensors" \
    --log-json "$prefix-ours-$1.jsonl" > "$prefix-ours-$1.txt" 2>&1
  tail -1 "$prefix-ours-$1.txt"
}

# bench_run RUN: one run's trainer, its baselines and its report
# (results/bench-RUN.md). Returns 2 when there is no GPU.
bench_run() {
  local run=$1 b=$dir/bench/$1 cfg x prefix=$res/bench-$1 precision modes
  cfg=$b/config.json
  x=$work/$run/trainer
  mkdir -p "$work/$run"
  echo "=== $run"
  if [ -n "$fake" ]; then
    cp "$twin/bench/$run/trainer" "$x"
    cfg=$twin/bench/$run/config.json
  else
    unpack "$b/trainer.xz" "$x"
  fi
  chmod +x "$x"
  echo "bench: $(tr -d '\n' < "$cfg")"
  [ -f "$b/build.txt" ] && sed 's/^/bench: build: /' "$b/build.txt"
  precision=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1])).get("precision", "fp32"))' "$cfg")

  # No GPU: the trainer exits with status 2 before reading anything (so a
  # missing weights file does not matter here), and the bench stops.
  "$x" --steps 1 --synthetic 0 --weights "$work/none.safetensors" > "$work/probe.txt" 2>&1
  if [ $? -eq 2 ]; then echo "bench: NO GPU (status 2): $(cat "$work/probe.txt")"; return 2; fi

  echo "== random weights from the trainer's --help"
  "$PY" "$tools/random_safetensors.py" "$x" "$x.safetensors" || return 1

  local n=$((warm + steps)) rc
  rm -f "$prefix"-ours*.jsonl "$prefix"-torch-*.json
  echo "== ours: $n steps --synthetic 0 (timeout ${T}s)"
  timeout -s TERM "$T" "$x" --steps "$n" --synthetic 0 --log-json "$prefix-ours.jsonl" \
    > "$prefix-ours.txt" 2>&1
  rc=$?
  tail -3 "$prefix-ours.txt"
  if [ $rc -eq 2 ]; then echo "bench: no GPU (status 2): $(cat "$prefix-ours.txt")"; return 2; fi
  [ $rc -ne 0 ] && echo "bench: ours exited with status $rc (143/124: stopped by the timeout; the logged steps count)"
  # A second run of ours: fp32 with TF32 products; bf16 built with
  # --remat=none (the CUDA default is --remat=cheap), on the same weights.
  local alt_log=$work/none.jsonl alt_name="" alt_arith=""
  if [ "$precision" = fp32 ]; then
    echo "== ours --allow-tf32: $((warm + 10)) steps"
    timeout -s TERM "$T" "$x" --steps $((warm + 10)) --synthetic 0 --allow-tf32 \
      --log-json "$prefix-ours-tf32.jsonl" > "$prefix-ours-tf32.txt" 2>&1
    tail -1 "$prefix-ours-tf32.txt"
    alt_log=$prefix-ours-tf32.jsonl alt_name="ours --allow-tf32" alt_arith=tf32
  elif [ -f "$b/trainer-remat-none.xz" ]; then
    other_build remat-none --remat=none
    alt_log=$prefix-ours-remat-none.jsonl alt_name="ours --remat=none" alt_arith=$precision
  fi

  # fp32 built with --fuse-attention=true: a third run of ours, its median
  # step and peak memory printed and appended to the report.
  local attn_line=""
  if [ -f "$b/trainer-attn.xz" ]; then
    other_build attn --fuse-attention=true
    attn_line=$("$PY" -c '
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][int(sys.argv[2]):]
if rows:
    print("ours --fuse-attention=true: %.2f ms/step (median of %d after %s warm-up), peak %.0f MiB, last loss %.6f"
          % (statistics.median(r["ms"] for r in rows), len(rows), sys.argv[2],
             max(r.get("gpu_mem_peak_mib", r.get("tensor_peak_mib", 0)) for r in rows), rows[-1]["loss"]))
' "$prefix-ours-attn.jsonl" "$warm" 2> /dev/null)
    [ -n "$attn_line" ] || attn_line="ours --fuse-attention=true: no step logged (results/bench-$run-ours-attn.txt)"
    echo "$attn_line"
  fi

  if [ "$precision" = bf16 ]; then modes="eager-bf16 compile-bf16"; else modes="eager-fp32 eager-tf32 compile"; fi
  modes=${BENCH_TORCH_MODES:-$modes}
  local results=() mode prof first=1
  for mode in $modes; do
    echo "== PyTorch $mode: $n steps"
    prof=()
    [ $first = 1 ] && prof=(--profile "$prefix-kernels-torch.md")
    first=0
    timeout "$T" "$PY" "$tools/gpu_train_torch.py" run "$cfg" "$mode" "$prefix-torch-$mode.json" \
      --steps "$steps" --warmup "$warm" ${prof[@]+"${prof[@]}"} > "$prefix-torch-$mode.txt" 2>&1 \
      || echo "bench: PyTorch $mode failed (status $?): $(tail -2 "$prefix-torch-$mode.txt")"
    tail -1 "$prefix-torch-$mode.txt"
    results+=("$prefix-torch-$mode.json")
  done

  echo "== kernels of ours"
  if command -v nsys > /dev/null && [ -z "$fake" ]; then
    local prof_steps=4 csv
    timeout "$T" nsys profile --trace=cuda --force-overwrite=true -o "$work/$run/ours" \
      "$x" --steps $prof_steps --synthetic 0 > "$prefix-nsys.txt" 2>&1
    nsys stats --report cuda_gpu_kern_sum --format csv --force-export=true --output "$work/$run/kern" \
      "$work/$run/ours.nsys-rep" >> "$prefix-nsys.txt" 2>&1
    csv=$(ls "$work/$run"/kern*.csv 2>/dev/null | head -1)
    if [ -n "$csv" ]; then
      "$PY" "$tools/gpu_train_torch.py" kernels-nsys "$csv" "$prof_steps" "$prefix-kernels-ours.md"
    else
      echo "nsys ran but wrote no kernel summary (see results/bench-$run-nsys.txt)" > "$prefix-kernels-ours.md"
    fi
  else
    # No nsys: the trainer's own --trace (event-timed spans of the GPU's
    # streams) of step 4, with each kernel's bytes (scripts/gpu-check.sh
    # wrote them from the IR for the gpt2-small runs) and rate.
    timeout "$T" "$x" --steps 4 --synthetic 0 --trace "$prefix-trace.json" --trace-steps 4:4 \
      > "$prefix-trace.txt" 2>&1 \
      && "$PY" "$tools/gpu_train_torch.py" kernels-trace "$prefix-trace.json" "$prefix-kernels-ours.md" \
           --bytes "$b/kernel-bytes.tsv" --device "$device" \
      || echo "nsys not found and the traced run failed (results/bench-$run-trace.txt)" > "$prefix-kernels-ours.md"
  fi
  rm -f "$x.safetensors"  # up to 6 GB

  local command="BENCH_RUNS=$run bash $(basename "$dir")/bench.sh   # BENCH_STEPS=$steps BENCH_WARMUP=$warm; built by scripts/gpu-check.sh OUTDIR"
  "$PY" "$tools/gpu_train_torch.py" report "$cfg" "$prefix-ours.jsonl" "$alt_log" \
    "${results[@]}" --warmup "$warm" --out "$prefix.md" --command "$command" \
    --alt-name "$alt_name" --alt-arithmetic "$alt_arith"
  local status=$? f
  [ -n "$attn_line" ] && { echo; echo "$attn_line"; } | tee -a "$prefix.md"
  for f in "$prefix-kernels-ours.md" "$prefix-kernels-torch.md"; do
    [ -f "$f" ] && { echo; cat "$f"; } | tee -a "$prefix.md"
  done
  return $status
}

status=0
: > "$res/bench.md"
for run in $runs; do
  if [ ! -d "$dir/bench/$run" ]; then
    echo "bench: no run $run in $dir/bench (RUNS.txt: $(tr '\n' ' ' < "$dir/bench/RUNS.txt"))" >&2
    status=1
    continue
  fi
  bench_run "$run"
  rc=$?
  [ -f "$res/bench-$run.md" ] && { cat "$res/bench-$run.md"; echo; } >> "$res/bench.md"
  [ $rc -eq 2 ] && exit 2
  [ $rc -ne 0 ] && status=1
done
exit $status
