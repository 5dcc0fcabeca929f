#!/usr/bin/env bash
# GPU training benchmark: one AdamW step of gpt2-small (124M parameters:
# vocab 50257, context 1024, width 768, 12 layers, 12 heads) at batch 8 x seq
# 1024, our --target=cuda trainer against PyTorch on the same GPU in the same
# run: eager fp32 (TF32 off for matmul and cuDNN), eager with TF32, and
# torch.compile (fp32). Step time (median after warm-up), tokens/s, peak
# device memory, ours / each baseline, and the top 10 kernels (ours with nsys
# when it is installed, else from the trainer's --trace; PyTorch eager fp32
# with torch.profiler).
#
# scripts/gpu-check.sh OUTDIR builds the trainer (bench/gpt2-small/trainer.xz:
# no weights, they are 500 MB) and copies this script to OUTDIR/bench.sh. On
# the GPU machine (python3 with numpy and PyTorch):
#
#   bash OUTDIR/bench.sh [CHECKDIR]      (CHECKDIR: default the script's folder)
#
# The weights are random normal(0, 0.02), written there from the trainer's
# --help (tools/random_safetensors.py) into a temporary folder. Results:
# CHECKDIR/results/bench.md (the table and the command) and bench-*.txt/json.
# Environment: GPU_CHECK_RESULTS (the results folder instead of
# CHECKDIR/results), BENCH_STEPS (timed steps, default 20), BENCH_WARMUP (default
# 3), BENCH_TIMEOUT (seconds per run, default 300; a run of ours stopped by it
# keeps the steps it logged), PYTHON, GPU_CHECK_FAKE_CUDA=1 (the CPU twin's
# small stand-in trainer and PyTorch on the CPU: the script's logic only).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dir=${1:-$here}
dir=$(cd "$dir" && pwd)
if [ ! -d "$dir/bench/gpt2-small" ]; then
  echo "bench: $dir/bench/gpt2-small not found: run the copy in a folder built by scripts/gpu-check.sh" >&2
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
cfg=$dir/bench/gpt2-small/config.json
work=$(mktemp -d "${TMPDIR:-/tmp}/gpu-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
tools=$dir/tools

if [ -n "$fake" ]; then
  twin=${GPU_CHECK_CPU_TWIN:-${dir%/}-cpu}
  cp "$twin/bench/gpt2-small/trainer" "$work/trainer"
  cfg=$twin/bench/gpt2-small/config.json
  echo "bench: GPU_CHECK_FAKE_CUDA: the CPU stand-in in $twin/bench (not a benchmark)"
elif command -v xz > /dev/null; then
  xz -dc "$dir/bench/gpt2-small/trainer.xz" > "$work/trainer"
else
  "$PY" -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' \
    "$dir/bench/gpt2-small/trainer.xz" "$work/trainer"
fi
chmod +x "$work/trainer"
echo "bench: $(tr -d '\n' < "$cfg")"
[ -f "$dir/bench/gpt2-small/build.txt" ] && sed 's/^/bench: build: /' "$dir/bench/gpt2-small/build.txt"
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader

# No GPU: the trainer exits with status 2 before reading anything (so a
# missing weights file does not matter here), and the bench stops.
"$work/trainer" --steps 1 --synthetic 0 --weights "$work/none.safetensors" > "$work/probe.txt" 2>&1
if [ $? -eq 2 ]; then echo "bench: NO GPU (status 2): $(cat "$work/probe.txt")"; exit 2; fi

echo "== random weights from the trainer's --help"
"$PY" "$tools/random_safetensors.py" "$work/trainer" "$work/trainer.safetensors" || exit 1

n=$((warm + steps))
rm -f "$res"/bench-ours*.jsonl "$res"/bench-torch-*.json
echo "== ours: $n steps --synthetic 0 (timeout ${T}s)"
timeout -s TERM "$T" "$work/trainer" --steps "$n" --synthetic 0 --log-json "$res/bench-ours.jsonl" \
  > "$res/bench-ours.txt" 2>&1
rc=$?
tail -3 "$res/bench-ours.txt"
if [ $rc -eq 2 ]; then echo "bench: no GPU (status 2): $(cat "$res/bench-ours.txt")"; exit 2; fi
[ $rc -ne 0 ] && echo "bench: ours exited with status $rc (143/124: stopped by the timeout; the logged steps count)"
echo "== ours --allow-tf32: $((warm + 10)) steps"
timeout -s TERM "$T" "$work/trainer" --steps $((warm + 10)) --synthetic 0 --allow-tf32 \
  --log-json "$res/bench-ours-tf32.jsonl" > "$res/bench-ours-tf32.txt" 2>&1
tail -1 "$res/bench-ours-tf32.txt"

results=()
for mode in eager-fp32 eager-tf32 compile; do
  echo "== PyTorch $mode: $n steps"
  prof=()
  [ "$mode" = eager-fp32 ] && prof=(--profile "$res/bench-kernels-torch.md")
  timeout "$T" "$PY" "$tools/gpu_train_torch.py" run "$cfg" "$mode" "$res/bench-torch-$mode.json" \
    --steps "$steps" --warmup "$warm" "${prof[@]}" > "$res/bench-torch-$mode.txt" 2>&1 \
    || echo "bench: PyTorch $mode failed (status $?): $(tail -2 "$res/bench-torch-$mode.txt")"
  tail -1 "$res/bench-torch-$mode.txt"
  results+=("$res/bench-torch-$mode.json")
done

echo "== kernels of ours"
if command -v nsys > /dev/null && [ -z "$fake" ]; then
  prof_steps=4
  timeout "$T" nsys profile --trace=cuda --force-overwrite=true -o "$work/ours" \
    "$work/trainer" --steps $prof_steps --synthetic 0 > "$res/bench-nsys.txt" 2>&1
  nsys stats --report cuda_gpu_kern_sum --format csv --force-export=true --output "$work/kern" \
    "$work/ours.nsys-rep" >> "$res/bench-nsys.txt" 2>&1
  csv=$(ls "$work"/kern*.csv 2>/dev/null | head -1)
  if [ -n "$csv" ]; then
    "$PY" "$tools/gpu_train_torch.py" kernels-nsys "$csv" "$prof_steps" "$res/bench-kernels-ours.md"
  else
    echo "nsys ran but wrote no kernel summary (see results/bench-nsys.txt)" > "$res/bench-kernels-ours.md"
  fi
else
  # No nsys: the trainer's own --trace (event-timed spans of the GPU's
  # streams) of step 4.
  timeout "$T" "$work/trainer" --steps 4 --synthetic 0 --trace "$res/bench-trace.json" --trace-steps 4:4 \
    > "$res/bench-trace.txt" 2>&1 \
    && "$PY" "$tools/gpu_train_torch.py" kernels-trace "$res/bench-trace.json" "$res/bench-kernels-ours.md" \
    || echo "nsys not found and the traced run failed (results/bench-trace.txt)" > "$res/bench-kernels-ours.md"
fi

command="bash $(basename "$dir")/bench.sh   # BENCH_STEPS=$steps BENCH_WARMUP=$warm; built by scripts/gpu-check.sh OUTDIR"
"$PY" "$tools/gpu_train_torch.py" report "$cfg" "$res/bench-ours.jsonl" "$res/bench-ours-tf32.jsonl" \
  "${results[@]}" --warmup "$warm" --out "$res/bench.md" --command "$command"
status=$?
for f in bench-kernels-ours.md bench-kernels-torch.md; do
  if [ -f "$res/$f" ]; then
    { echo; cat "$res/$f"; } | tee -a "$res/bench.md"
  fi
done
exit $status
