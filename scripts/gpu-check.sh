#!/usr/bin/env bash
# Builds, on this (GPU-less) machine, the folder a GPU machine needs to check
# the --target=cuda backend against the CPU: docs/cuda-backend.md, "Checking
# on a GPU".
#
#   scripts/gpu-check.sh OUTDIR [--cpu-twin [TWINDIR]] [--twin-target T]
#                        [--no-bench] [--bench-batch B] [--bench-runs RUNS] [-j N]
#
# OUTDIR (at most 64 MiB, checked at the end) gets:
#   run.sh, bench.sh     the GPU test runner (`bash OUTDIR/run.sh`) and the
#                        GPT-2 benchmark it calls (bench/gpu-train.sh)
#   session.sh           both within a time budget, each phase packed into
#                        one file as it ends (a 15-minute device session)
#   tools/               check.py (the comparisons), random_safetensors.py,
#                        gpu_train_torch.py and models.py (the PyTorch side)
#   models/M/V.xz        the --target=cuda executables, xz-compressed (run.sh
#                        unpacks them into a temporary folder), V.safetensors
#                        their weights; M: mlp (examples/mlp/mlp.mlir),
#                        gpt2-tiny, cnn-small, gpt2-mha (examples/onnx/export.py --static),
#                        drop-path (test/Training/Inputs/user_models.py);
#                        V: fwd (forward), sgd, adamw (trainers), dp1 and bf16 (below)
#   ref/M/               the CPU reference, computed here by the same models
#                        compiled without --target: inputs/*.npy (fixed
#                        inputs), fwd/*.npy (forward outputs for them),
#                        sgd.jsonl, adamw.jsonl (and bf16.jsonl) (20 steps, --synthetic 0),
#                        gpt2-tiny/adamw-ckpt/step-00000010 (a CPU checkpoint
#                        the GPU resumes)
#   bench/RUN/           for each benchmark run (bench/RUNS.txt): trainer.xz
#                        (AdamW, --target=cuda; no weights: bench.sh writes
#                        random ones from the trainer's --help), config.json,
#                        build.txt (with --explain's predicted device memory),
#                        kernel-bytes.tsv and kernel-shapes.txt (each
#                        kernel's bytes from the IR: scripts/kernel-shapes.sh
#                        --access; not for gpt2-xl)
#   BUILD.txt            commit, date, every dist-compile command and its time
#
# --cpu-twin [TWINDIR] (default OUTDIR-cpu) also keeps the CPU executables,
# with the same layout, in TWINDIR: `GPU_CHECK_FAKE_CUDA=1 bash OUTDIR/run.sh`
# then runs every check on them instead of the GPU executables (the runner's
# logic end to end, without a GPU), and a gpt2-tiny CPU stand-in for the
# benchmark. --twin-target cuda-emulate makes the twins `dist-compile
# --target=cuda-emulate` executables instead (the CUDA target's generated
# kernels run on the CPU): then the comparisons with the CPU reference are
# not trivial, they check the kernel generation (about a minute more).
# The benchmark's runs are MODEL:PRECISION:BATCH (seq 1024), by default
# "gpt2-small:fp32:8 gpt2-small:bf16:8 gpt2-xl:bf16:2" (--bench-runs sets
# them; --bench-batch B makes gpt2-small's batch B). --no-bench skips them
# (gpt2-small's trainers take about 10 s each to build here; gpt2-xl 2
# minutes to export, with 17 GB of memory, and 2 to compile).
# -j N: compiles in parallel (default: the number of cores).
#
# Needs build/bin/dist-compile (already built) and Debian's /usr/bin/python3
# with torch 1.13 and numpy (examples/onnx/export.py). Exit status non-zero on
# any failure, or when OUTDIR exceeds 64 MiB.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dc=$root/build/bin/dist-compile
py=/usr/bin/python3
limit_mib=64

usage() { sed -n '2,48p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
out="" twin="" bench=1 jobs=$(nproc) bench_batch=8 twin_target=cpu bench_runs=""
while [ $# -gt 0 ]; do
  case "$1" in
    --cpu-twin) twin=auto
                if [ $# -gt 1 ] && [ "${2#-}" = "$2" ] && [ -n "$out" ]; then twin=$2; shift; fi ;;
    --no-bench) bench=0 ;;
    --bench-batch) bench_batch=$2; shift ;;
    --bench-runs) bench_runs=$2; shift ;;
    --twin-target) twin_target=$2; shift
                   case "$twin_target" in cpu|cuda-emulate) ;; *) echo "gpu-check.sh: --twin-target cpu or cuda-emulate" >&2; exit 2 ;; esac ;;
    -j) jobs=$2; shift ;;
    -h|--help) usage 0 ;;
    -*) echo "gpu-check.sh: unknown option $1" >&2; usage ;;
    *) [ -z "$out" ] || { echo "gpu-check.sh: one OUTDIR only" >&2; usage; }; out=$1 ;;
  esac
  shift
done
[ -n "$out" ] || usage
[ -n "$bench_runs" ] || bench_runs="gpt2-small:fp32:$bench_batch gpt2-small:bf16:$bench_batch gpt2-xl:bf16:2"
[ -x "$dc" ] || { echo "gpu-check.sh: $dc not built" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
[ "$twin" = auto ] && twin=${out%/}-cpu
t_start=$(date +%s)

work=$(mktemp -d /tmp/gpu-check-build.XXXXXX)
trap 'rm -rf "$work"' EXIT
rm -rf "$out/models" "$out/ref" "$out/bench" "$out/tools" "$out/results" \
       "$out/run.sh" "$out/bench.sh" "$out/session.sh" "$out/BUILD.txt"
mkdir -p "$out/models" "$out/ref" "$out/tools"
build_txt=$out/BUILD.txt
{
  echo "built by scripts/gpu-check.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit $(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet 2>/dev/null || echo ' (with local changes)')"
  echo "dist-compile $(stat -c %y "$dc")"
} > "$build_txt"

# Training hyperparameters (as examples/run.sh for AdamW).
adamw_flags=(--train --optimizer=adamw --lr=1e-3 --weight-decay=0.01 --max-grad-norm=1 --warmup-steps=2)
sgd_flags=(--train --optimizer=sgd --lr=1e-2 --momentum=0.9 --max-grad-norm=1)
# gpt2-mha: tanh GELU, which runs in cuBLASLt's GELU epilogue (aux kept for
# the backward pass); bias epilogues everywhere.
# drop-path: stochastic depth (dist.random_uniform keyed by the seed and
# step), whose draws must be the CPU's.
models=(mlp gpt2-tiny cnn-small gpt2-mha drop-path)
# The executables of model $1: fwd, sgd, adamw, and for mlp and gpt2-tiny
# dp1, the SGD trainer compiled for data parallelism on a mesh of one
# device: run.sh runs it with DISTRT_COMM_ALWAYS=1, its all-reduces through
# NCCL (a communicator of one GPU); and for gpt2-tiny bf16, the AdamW
# trainer with --precision=bf16 (cuBLASLt's bf16 products with float32
# accumulation against the CPU's), and attn, the AdamW trainer with
# --fuse-attention=true (dist.attention's loops as a kernel with a thread
# per row; off by default on CUDA until measured).
variants() {
  case "$1" in
    mlp) echo fwd sgd adamw dp1 ;;
    gpt2-tiny) echo fwd sgd adamw dp1 bf16 attn ;;
    *) echo fwd sgd adamw ;;
  esac
}
dp1_flags=(--mesh=1 --parallel=dp --bucket-mb=0.01)
bf16_flags=(--precision=bf16)
attn_flags=(--fuse-attention=true)
declare -A src=([mlp]=$root/examples/mlp/mlp.mlir [gpt2-tiny]=$work/gpt2-tiny.onnx
                [cnn-small]=$work/cnn-small.onnx [gpt2-mha]=$work/gpt2-mha.onnx
                [drop-path]=$work/drop-path.onnx)
# Integer inputs of the forward's fixed inputs take values in [0, range).
declare -A int_range=([mlp]=10 [gpt2-tiny]=512 [cnn-small]=10 [gpt2-mha]=512 [drop-path]=8)

echo "== export gpt2-tiny, cnn-small, gpt2-mha (PyTorch 1.13, --static), drop-path (user_models.py)"
for m in gpt2-tiny cnn-small gpt2-mha; do
  "$py" "$root/examples/onnx/export.py" "$m" "$work/$m.onnx" --static 2>/dev/null
done
"$py" "$root/test/Training/Inputs/user_models.py" drop-path train "$work/drop-path.onnx" 2>/dev/null

# A small job pool: compile() runs dist-compile in the background, at most
# $jobs at a time; its log is $work/log/NAME.txt.
mkdir -p "$work/log" "$work/cpu" "$work/cuda"
running=0
compile() {  # NAME ARGS...
  local name=$1; shift
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
  ( s=$(date +%s.%N)
    if ! "$dc" "$@" > "$work/log/$name.txt" 2>&1; then
      echo "error: dist-compile failed for $name:" >&2; cat "$work/log/$name.txt" >&2; exit 1
    fi
    printf '%-28s %6.1f s  dist-compile %s\n' "$name" "$(awk -v a="$(date +%s.%N)" -v b="$s" 'BEGIN{print a-b}')" \
      "$(echo "$*" | sed "s|$work/||g; s|$root/||g")" >> "$work/log/times.txt" ) &
  running=$((running + 1))
}
wait_all() { while [ "$running" -gt 0 ]; do wait -n; running=$((running - 1)); done; }

# The benchmark's runs: MODEL:PRECISION:BATCH (seq 1024), named
# MODEL-PRECISION (bench/gpu-train.sh).
run_name() { echo "${1%%:*}-$(echo "$1" | cut -d: -f2)"; }
bench_flags() {  # the dist-compile flags of run $1
  local batch precision
  precision=$(echo "$1" | cut -d: -f2); batch=$(echo "$1" | cut -d: -f3)
  echo --input-shape=idx=${batch}x1024 --input-shape=targets=${batch}x1024 --train --optimizer=adamw \
    --lr=6e-4 --weight-decay=0.1 --max-grad-norm=1 $([ "$precision" = bf16 ] && echo --precision=bf16)
}
if [ "$bench" = 1 ]; then
  # The models, exported with dynamic axes and compiled for batch x seq
  # 1024; first, since they take longest (gpt2-xl: 2 minutes to export, 2
  # to compile; its ONNX file keeps its 6 GB of weights beside it).
  mkdir -p "$work/bench"
  for m in $(for r in $bench_runs; do echo "${r%%:*}"; done | sort -u); do
    echo "== export $m (dynamic axes) for the benchmark"
    mkdir -p "$work/onnx-$m"
    "$py" "$root/examples/onnx/export.py" "$m" "$work/onnx-$m/$m.onnx" 2> "$work/log/export-$m.txt" || {
      echo "error: exporting $m failed (gpt2-xl needs about 17 GB of memory):" >&2
      tail -5 "$work/log/export-$m.txt" >&2; exit 1; }
  done
  for r in $bench_runs; do
    n=$(run_name "$r")
    mkdir -p "$work/bench/$n"
    # shellcheck disable=SC2046
    compile "bench-$n" "$work/onnx-${r%%:*}/${r%%:*}.onnx" --target=cuda $(bench_flags "$r") --explain \
      -o "$work/bench/$n/trainer"
    # fp32: the same with --fuse-attention=true (decision 62), timed in the
    # same run.
    if [ "$(echo "$r" | cut -d: -f2)" = fp32 ]; then
      # shellcheck disable=SC2046
      compile "bench-$n-attn" "$work/onnx-${r%%:*}/${r%%:*}.onnx" --target=cuda $(bench_flags "$r") \
        --fuse-attention=true --explain -o "$work/bench/$n/trainer-attn"
    fi
    # bf16: the same without the CUDA default --remat=cheap, timed in the
    # same run (docs/memory.md).
    if [ "$(echo "$r" | cut -d: -f2)" = bf16 ]; then
      # shellcheck disable=SC2046
      compile "bench-$n-remat-none" "$work/onnx-${r%%:*}/${r%%:*}.onnx" --target=cuda $(bench_flags "$r") \
        --remat=none --explain -o "$work/bench/$n/trainer-remat-none"
    fi
    if [ -n "$twin" ]; then
      # The CPU stand-in: gpt2-tiny at its export shape, same precision.
      # shellcheck disable=SC2046
      compile "bench-$n-cpu-stand-in" "$work/gpt2-tiny.onnx" $(bench_flags "$r" | cut -d' ' -f3-) \
        -o "$work/bench/$n/cpu-trainer"
    fi
  done
fi

echo "== dist-compile ${#models[@]} models x (fwd, sgd, adamw) x (cuda, cpu) with -j $jobs"
for m in "${models[@]}"; do
  mkdir -p "$work/cpu/$m" "$work/cuda/$m"
  for t in cuda cpu; do
    tflag=(); [ "$t" = cuda ] && tflag=(--target=cuda)
    compile "$t-$m-fwd"   "${src[$m]}" "${tflag[@]}" -o "$work/$t/$m/fwd"
    # The CUDA trainers' --explain predicts their device memory (run.sh's
    # memory-estimate checks).
    [ "$t" = cuda ] && tflag+=(--explain)
    compile "$t-$m-sgd"   "${src[$m]}" "${tflag[@]}" "${sgd_flags[@]}" -o "$work/$t/$m/sgd"
    compile "$t-$m-adamw" "${src[$m]}" "${tflag[@]}" "${adamw_flags[@]}" -o "$work/$t/$m/adamw"
    if [[ " $(variants "$m") " = *" dp1 "* ]]; then
      compile "$t-$m-dp1" "${src[$m]}" "${tflag[@]}" "${sgd_flags[@]}" "${dp1_flags[@]}" -o "$work/$t/$m/dp1"
    fi
    if [[ " $(variants "$m") " = *" bf16 "* ]]; then
      compile "$t-$m-bf16" "${src[$m]}" "${tflag[@]}" "${adamw_flags[@]}" "${bf16_flags[@]}" -o "$work/$t/$m/bf16"
    fi
    if [[ " $(variants "$m") " = *" attn "* ]]; then
      compile "$t-$m-attn" "${src[$m]}" "${tflag[@]}" "${adamw_flags[@]}" "${attn_flags[@]}" -o "$work/$t/$m/attn"
    fi
  done
  if [ -n "$twin" ] && [ "$twin_target" = cuda-emulate ]; then
    mkdir -p "$work/emu/$m"
    compile "emu-$m-fwd"   "${src[$m]}" --target=cuda-emulate -o "$work/emu/$m/fwd"
    compile "emu-$m-sgd"   "${src[$m]}" --target=cuda-emulate "${sgd_flags[@]}" -o "$work/emu/$m/sgd"
    compile "emu-$m-adamw" "${src[$m]}" --target=cuda-emulate "${adamw_flags[@]}" -o "$work/emu/$m/adamw"
    if [[ " $(variants "$m") " = *" dp1 "* ]]; then
      compile "emu-$m-dp1" "${src[$m]}" --target=cuda-emulate "${sgd_flags[@]}" "${dp1_flags[@]}" -o "$work/emu/$m/dp1"
    fi
    if [[ " $(variants "$m") " = *" bf16 "* ]]; then
      compile "emu-$m-bf16" "${src[$m]}" --target=cuda-emulate "${adamw_flags[@]}" "${bf16_flags[@]}" -o "$work/emu/$m/bf16"
    fi
    if [[ " $(variants "$m") " = *" attn "* ]]; then
      compile "emu-$m-attn" "${src[$m]}" --target=cuda-emulate "${adamw_flags[@]}" "${attn_flags[@]}" -o "$work/emu/$m/attn"
    fi
  fi
done

wait_all
cat "$work/log/times.txt" >> "$build_txt"
# The device memory dist-compile --explain predicts for each CUDA trainer.
for m in "${models[@]}"; do
  mkdir -p "$out/ref/$m"
  for v in $(variants "$m"); do
    [ "$v" = fwd ] && continue
    grep "(CUDA device memory): peak" "$work/log/cuda-$m-$v.txt" > "$out/ref/$m/$v-estimate.txt" || {
      echo "error: dist-compile --target=cuda --explain printed no device-memory peak for $m $v" >&2; exit 1; }
  done
done
# examples/mlp/mlp.mlir's constant weights make fc1's gradient zero
# analytically (fc2's rows are equal, so the classes' terms cancel): what
# float32 computes for it is rounding noise, which AdamW divides by its own
# size, and the GPU's noise (libdevice's exp and log in the loss) is not the
# CPU's. Random weights, the same for every variant and target, make the
# comparison mean something (the first GPU run failed train-adamw mlp by
# 7.75e-05 on that noise alone).
"$py" "$root/bench/random_safetensors.py" "$work/cpu/mlp/fwd" "$work/mlp-weights.safetensors" \
  --std 0.1 --seed 1 > /dev/null
for t in cpu cuda emu; do
  for v in $(variants mlp); do
    [ -f "$work/$t/mlp/$v.safetensors" ] && cp "$work/mlp-weights.safetensors" "$work/$t/mlp/$v.safetensors"
  done
done
echo "== CPU reference (forward on fixed inputs, 20 steps of each trainer with --synthetic 0)"
for m in "${models[@]}"; do
  r=$out/ref/$m
  mkdir -p "$r/inputs" "$r/fwd"
  "$work/cpu/$m/fwd" --help > "$work/$m-fwd-help.txt"
  names=$("$py" "$root/scripts/gpu-check/check.py" inputs "$work/$m-fwd-help.txt" "$r/inputs" "${int_range[$m]}" 1234)
  args=()
  for n in $names; do args+=(--input "$n=$r/inputs/${n//\//_}.npy"); done
  "$work/cpu/$m/fwd" "${args[@]}" --output-dir "$r/fwd" > /dev/null
  refs=(sgd adamw)
  [[ " $(variants "$m") " = *" bf16 "* ]] && refs+=(bf16)
  for v in "${refs[@]}"; do
    ckpt=()
    [ "$m/$v" = gpt2-tiny/adamw ] && ckpt=(--ckpt "$work/ckpt-$m-$v" --save-every 10)
    "$work/cpu/$m/$v" --steps 20 --synthetic 0 --log-json "$r/$v.jsonl" "${ckpt[@]}" > "$work/$m-$v.txt"
    printf '   %-10s %-6s step 20: %s\n' "$m" "$v" "$(tail -1 "$work/$m-$v.txt" | cut -d'|' -f1-3)"
  done
done
mkdir -p "$out/ref/gpt2-tiny/adamw-ckpt"
cp -r "$work/ckpt-gpt2-tiny-adamw/step-00000010" "$out/ref/gpt2-tiny/adamw-ckpt/"

echo "== pack the cuda executables (xz) and weights into $out/models"
for m in "${models[@]}"; do
  mkdir -p "$out/models/$m"
  for v in $(variants "$m"); do
    "$work/cuda/$m/$v" --help > /dev/null   # runs without a GPU
    xz -T"$jobs" -6 -c "$work/cuda/$m/$v" > "$out/models/$m/$v.xz"
    cp "$work/cuda/$m/$v.safetensors" "$out/models/$m/$v.safetensors"
  done
done

# bench_config MODEL PRECISION BATCH SEQ [DESCRIPTION]: a run's config.json
# (the model's sizes from examples/onnx/models.py).
bench_config() {
  "$py" -c '
import json, sys
sys.path.insert(0, sys.argv[1])
import models
model, precision, batch, seq = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
vocab, context, width, layers, heads, _ = models.GPT2_SIZES[model]
print(json.dumps({"model": sys.argv[6] if len(sys.argv) > 6 else model, "vocab": vocab,
                  "context": context, "width": width, "layers": layers, "heads": heads,
                  "batch": batch, "seq": seq, "precision": precision, "lr": 6e-4,
                  "weight_decay": 0.1, "betas": [0.9, 0.999], "eps": 1e-8, "max_grad_norm": 1.0}))
' "$root/examples/onnx" "$@"
}
if [ "$bench" = 1 ]; then
  mkdir -p "$out/bench"
  : > "$out/bench/RUNS.txt"
  for r in $bench_runs; do
    n=$(run_name "$r") b=$out/bench/$(run_name "$r")
    mkdir -p "$b"
    echo "$n" >> "$out/bench/RUNS.txt"
    xz -T"$jobs" -6 -c "$work/bench/$n/trainer" > "$b/trainer.xz"
    for alt in remat-none attn; do
      if [ -f "$work/bench/$n/trainer-$alt" ]; then
        xz -T"$jobs" -6 -c "$work/bench/$n/trainer-$alt" > "$b/trainer-$alt.xz"
        rm -f "$work/bench/$n/trainer-$alt.safetensors"
      fi
    done
    "$work/bench/$n/trainer" --help > "$b/help.txt"
    # Each kernel's bytes, from the IR, for the benchmark's per-kernel
    # rates (not for gpt2-xl: the IR would carry its 6 GB of weights).
    if [ "${r%%:*}" != gpt2-xl ]; then
      # shellcheck disable=SC2046
      "$root/scripts/kernel-shapes.sh" "$work/onnx-${r%%:*}/${r%%:*}.onnx" $(bench_flags "$r") \
        -- --access --tsv "$b/kernel-bytes.tsv" > "$b/kernel-shapes.txt" 2> "$work/log/kernel-shapes-$n.txt" || {
        echo "error: scripts/kernel-shapes.sh on $n failed:" >&2; tail -5 "$work/log/kernel-shapes-$n.txt" >&2; exit 1; }
    fi
    bench_config "${r%%:*}" "$(echo "$r" | cut -d: -f2)" "$(echo "$r" | cut -d: -f3)" 1024 > "$b/config.json"
    {
      echo "dist-compile ${r%%:*}.onnx --target=cuda $(bench_flags "$r")"
      grep "^bench-$n " "$work/log/times.txt" || true
      grep "(CUDA device memory): peak" "$work/log/bench-$n.txt" || true
      if [ -f "$b/trainer-remat-none.xz" ]; then
        grep "^bench-$n-remat-none " "$work/log/times.txt" || true
        grep "(CUDA device memory): peak" "$work/log/bench-$n-remat-none.txt" | sed 's/^/--remat=none: /' || true
      fi
      if [ -f "$b/trainer-attn.xz" ]; then
        grep "^bench-$n-attn " "$work/log/times.txt" || true
        grep "(CUDA device memory): peak" "$work/log/bench-$n-attn.txt" | sed 's/^/--fuse-attention=true: /' || true
      fi
      echo "executable $(stat -c %s "$work/bench/$n/trainer") bytes, xz $(stat -c %s "$b/trainer.xz") bytes;"
      echo "weights (not carried) $(stat -c %s "$work/bench/$n/trainer.safetensors") bytes"
    } > "$b/build.txt"
    rm -f "$work/bench/$n/trainer.safetensors"
  done
fi

cp "$root/scripts/gpu-check/run.sh" "$out/run.sh"
cp "$root/scripts/gpu-check/session.sh" "$out/session.sh"
cp "$root/bench/gpu-train.sh" "$out/bench.sh"
cp "$root/scripts/gpu-check/check.py" "$root/bench/random_safetensors.py" \
   "$root/bench/gpu_train_torch.py" "$root/examples/onnx/models.py" "$out/tools/"
cat > "$out/README.txt" <<'EOF'
GPU check folder, built by scripts/gpu-check.sh (docs/cuda-backend.md).
On a machine with an NVIDIA GPU (bash, python3 with numpy; PyTorch for the benchmark):
  bash run.sh              every check, then the benchmark (bench.sh); results/ holds the logs
  bash run.sh --no-bench   the checks only
  bash bench.sh            the benchmark only (results/bench.md)
  bash session.sh DEST     checks and benchmark within 9 minutes, packed into DEST
EOF

if [ -n "$twin" ]; then
  echo "== CPU twin ($twin_target executables) in $twin (GPU_CHECK_FAKE_CUDA=1 bash $out/run.sh)"
  rm -rf "$twin"; mkdir -p "$twin/models"
  tdir=$work/cpu; [ "$twin_target" = cuda-emulate ] && tdir=$work/emu
  echo "$twin_target" > "$twin/TARGET.txt"
  for m in "${models[@]}"; do
    mkdir -p "$twin/models/$m"
    for v in $(variants "$m"); do cp "$tdir/$m/$v" "$tdir/$m/$v.safetensors" "$twin/models/$m/"; done
  done
  if [ "$bench" = 1 ]; then
    for r in $bench_runs; do
      n=$(run_name "$r")
      mkdir -p "$twin/bench/$n"
      cp "$work/bench/$n/cpu-trainer" "$twin/bench/$n/trainer"
      bench_config gpt2-tiny "$(echo "$r" | cut -d: -f2)" 2 64 "gpt2-tiny (CPU stand-in of $n)" \
        > "$twin/bench/$n/config.json"
    done
  fi
fi

size=$(du -sb "$out" | cut -f1)
t_end=$(date +%s)
echo "built in $((t_end - t_start)) s" | tee -a "$build_txt"
printf '== %s: %.1f MiB (limit %d MiB)\n' "$out" "$(awk -v s="$size" 'BEGIN{print s/1048576}')" "$limit_mib"
if [ "$size" -gt $((limit_mib * 1048576)) ]; then
  echo "error: $out is bigger than $limit_mib MiB" >&2
  exit 1
fi
echo "next, on the GPU machine: bash $(basename "$out")/run.sh   (--no-bench: without the benchmark)"
