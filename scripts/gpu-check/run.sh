#!/usr/bin/env bash
# The GPU test runner of a check folder built by scripts/gpu-check.sh
# (docs/cuda-backend.md, "Checking on a GPU"). On a machine with one NVIDIA
# GPU, bash and python3 with numpy (PyTorch only for the benchmark):
#
#   bash OUTDIR/run.sh [--no-bench]        (from any directory)
#
# For each model (mlp, gpt2-tiny, cnn-small, gpt2-mha, drop-path) it runs the --target=cuda
# executables and checks:
#   forward       outputs on the fixed inputs vs the CPU's, relative 1e-5
#                 (max |gpu - cpu| / max |cpu| per tensor; the worst printed)
#   train-sgd     20 steps --synthetic 0: loss and grad_norm of every step vs
#   train-adamw   the CPU's, relative 1e-5 (lr equal)
#   determinism   a second run: forward outputs bitwise, every step's loss,
#                 grad_norm, lr as printed (9 digits: exact floats), and the
#                 final checkpoint's CRC-32C of every tensor identical
#   resume        a run with --ckpt --save-every 1 killed with SIGKILL once its
#                 log shows step >= 7 (it is given --steps 1000 so that it is
#                 still running), then --resume to step 20: the steps after
#                 the checkpoint bitwise equal to the uninterrupted run's, and
#                 the final checkpoints identical
# and for gpt2-tiny (AdamW) also:
#   memory        200 steps: gpu_mem_peak_mib at step 200 equals step 2's
#   memory-estimate-V  (every trainer V) the run's largest gpu_mem_peak_mib
#                 within 10% of what dist-compile --target=cuda --explain
#                 predicted (ref/M/V-estimate.txt)
#   trace         --trace of step 3: the GPU compute stream's kernels and
#                 cuBLASLt products inside the step, busy time <= the step's
#   cpu-ckpt      the CPU's checkpoint of step 10 resumed on the GPU to step
#                 20: steps 11..20 within 1e-5 of the CPU's
#   ckpt-layout   a GPU checkpoint has the CPU's files, tensor names, dtypes
#                 and shapes
#   tf32          (information only) 20 steps with --allow-tf32 vs the CPU
# and for gpt2-tiny:
#   train-bf16    AdamW with --precision=bf16, 20 steps vs the CPU's bf16
#                 run, relative 2e-3, and a second run bitwise equal
#   train-attn    AdamW with --fuse-attention=true (dist.attention's loops
#                 as GPU kernels), 20 steps vs the CPU's adamw run, relative
#                 1e-5, a second run bitwise equal (determinism-attn), and
#                 its device memory against --explain (memory-estimate-attn)
# and for mlp and gpt2-tiny:
#   train-dp1-nccl  SGD compiled for DP on a mesh of one device, run with
#                 DISTRT_COMM_ALWAYS=1 (torchrun-style variables): its
#                 all-reduces go through NCCL (a communicator of one GPU);
#                 20 steps vs the CPU's sgd.jsonl, relative 1e-5
# then the gpt2-small benchmark (bench.sh) unless --no-bench. It prints a
# summary table (test, model, PASS/FAIL, worst relative error) and exits 1 if
# any check failed, 2 if the first executable says there is no GPU (status 2).
# Everything printed also goes to OUTDIR/results/summary.txt, every log to
# OUTDIR/results/ (removed and recreated at each run; the checkpoints there
# keep only their manifests unless GPU_CHECK_KEEP_CKPT=1).
#
# Environment: GPU_CHECK_RESULTS (the results folder instead of
# OUTDIR/results, e.g. $OUT/results on the device tool, so that a run cut
# short still brings back what it wrote); GPU_CHECK_TIMEOUT (seconds per
# executable run, default 300);
# PYTHON (default: the first of python3, /usr/bin/python3 that has numpy);
# GPU_CHECK_FAKE_CUDA=1 runs the CPU twins of the
# executables instead (built by `scripts/gpu-check.sh OUTDIR --cpu-twin`, in
# $GPU_CHECK_CPU_TWIN, default OUTDIR-cpu): the runner's whole logic without
# a GPU.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bench=1
for a in "$@"; do
  case "$a" in
    --no-bench) bench=0 ;;
    -h|--help) sed -n '2,57p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument $a" >&2; exit 2 ;;
  esac
done
res=${GPU_CHECK_RESULTS:-$here/results}
export GPU_CHECK_RESULTS=$res   # bench.sh writes there too
rm -rf "$res"
mkdir -p "$res"
export GPU_CHECK_ROWS=$res/rows.tsv
T=${GPU_CHECK_TIMEOUT:-300}
# The first python3 with numpy (PYTHON if set).
PY=${PYTHON:-}
if [ -z "$PY" ]; then
  for p in python3 /usr/bin/python3 python; do
    if "$p" -c 'import numpy' 2> /dev/null; then PY=$p; break; fi
  done
  [ -n "$PY" ] || { echo "run.sh: no python3 with numpy found (set PYTHON)" >&2; exit 1; }
fi
export PYTHON=$PY
fake=${GPU_CHECK_FAKE_CUDA:-0}
[ "$fake" = 0 ] && fake=""
models=(mlp gpt2-tiny cnn-small gpt2-mha drop-path)
TOL=1e-5
# The measured device peak against dist-compile --explain's (issue 18's bar).
MEM_TOL=0.10

chk() { "$PY" "$here/tools/check.py" "$@"; }

# Where the executables are: unpacked from models/M/V.xz into a temporary
# folder (weights linked beside them), or the CPU twins.
if [ -n "$fake" ]; then
  bin=${GPU_CHECK_CPU_TWIN:-${here%/}-cpu}/models
else
  bin=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check-bin.XXXXXX")
  trap 'rm -rf "$bin"' EXIT
fi
exe() { echo "$bin/$1/$2"; }
# The executables of model $1 (scripts/gpu-check.sh's variants()).
variants() {
  case "$1" in
    mlp) echo fwd sgd adamw dp1 ;;
    gpt2-tiny) echo fwd sgd adamw dp1 bf16 attn ;;
    *) echo fwd sgd adamw ;;
  esac
}

unpack() {
  [ -n "$fake" ] && return 0
  local m v
  for m in "${models[@]}"; do
    mkdir -p "$bin/$m"
    for v in $(variants "$m"); do
      if command -v xz > /dev/null; then
        xz -dc "$here/models/$m/$v.xz" > "$bin/$m/$v" || return 1
      else
        "$PY" -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' \
          "$here/models/$m/$v.xz" "$bin/$m/$v" || return 1
      fi
      chmod +x "$bin/$m/$v"
      ln -sf "$here/models/$m/$v.safetensors" "$bin/$m/$v.safetensors"
    done
  done
}

# runx LOG CMD...: runs CMD under timeout, stdout+stderr to LOG; on failure
# prints the status and the last lines. Returns CMD's status.
runx() {
  local log=$1; shift
  timeout "$T" "$@" > "$log" 2>&1
  local rc=$?
  if [ $rc -ne 0 ]; then
    echo "    $(basename "$1") exited with status $rc$([ $rc = 124 ] && echo " (timeout ${T}s)"); last lines of $log:"
    tail -3 "$log" | sed 's/^/      /'
  fi
  return $rc
}
fail() { chk row "$1" "$2" FAIL "" "${@:3}" > /dev/null; echo "  -> $1 $2: FAIL ${*:3}"; }

fwd_args() {  # the --input options of model $1
  local f args=()
  for f in "$here/ref/$1/inputs/"*.npy; do
    args+=(--input "$(basename "$f" .npy)=$f")
  done
  echo "${args[@]}"
}

test_forward() {
  local m=$1 d=$res/$1 fwd
  fwd=$(exe "$m" fwd)
  echo "== $m: forward on the fixed inputs vs the CPU (relative $TOL)"
  # shellcheck disable=SC2046
  if runx "$d/fwd-1.txt" "$fwd" $(fwd_args "$m") --output-dir "$d/fwd-1"; then
    chk fwd forward "$m" "$here/ref/$m/fwd" "$d/fwd-1" "$TOL"
  else fail forward "$m" "the forward failed (results/$m/fwd-1.txt)"; fi
  # shellcheck disable=SC2046
  if runx "$d/fwd-2.txt" "$fwd" $(fwd_args "$m") --output-dir "$d/fwd-2"; then
    chk same-npy determinism-fwd "$m" "$d/fwd-1" "$d/fwd-2"
  else fail determinism-fwd "$m" "the second forward failed"; fi
}

test_train() {
  local m=$1 v=$2 d=$res/$1 x
  x=$(exe "$m" "$v")
  echo "== $m $v: 20 steps --synthetic 0 vs the CPU (relative $TOL), twice (bitwise)"
  if runx "$d/$v-1.txt" "$x" --steps 20 --synthetic 0 --log-json "$d/$v-1.jsonl" --ckpt "$d/$v-1.ckpt"; then
    chk log "train-$v" "$m" "$here/ref/$m/$v.jsonl" "$d/$v-1.jsonl" "$TOL"
    chk mem-estimate "memory-estimate-$v" "$m" "$here/ref/$m/$v-estimate.txt" "$d/$v-1.jsonl" "$MEM_TOL"
  else fail "train-$v" "$m" "the run failed (results/$m/$v-1.txt)"; return; fi
  if runx "$d/$v-2.txt" "$x" --steps 20 --synthetic 0 --log-json "$d/$v-2.jsonl" --ckpt "$d/$v-2.ckpt"; then
    chk log-exact "determinism-$v" "$m" "$d/$v-2.jsonl" "$d/$v-1.jsonl"
    chk ckpt-same "determinism-$v-ckpt" "$m" "$d/$v-2.ckpt" "$d/$v-1.ckpt"
  else fail "determinism-$v" "$m" "the second run failed"; fi

  echo "== $m $v: SIGKILL after step >= 7 (--save-every 1), --resume to step 20"
  chk kill "resume-$v" "$m" "$d/$v-kill.jsonl" 7 -- timeout "$T" "$x" --steps 1000 --synthetic 0 \
    --log-json "$d/$v-kill.jsonl" --ckpt "$d/$v-kill.ckpt" --save-every 1 || return
  local k target=20 ref=$d/$v-1.jsonl refck=$d/$v-1.ckpt
  k=$(chk newest-step "$d/$v-kill.ckpt")
  echo "    newest complete checkpoint: step $k ($(ls "$d/$v-kill.ckpt" | tr '\n' ' '))"
  if [ "$k" -lt 1 ]; then fail "resume-$v" "$m" "no checkpoint was written before the kill"; return; fi
  if [ "$k" -ge 18 ]; then  # killed late: compare a few steps past it
    target=$((k + 3)); ref=$d/$v-long.jsonl; refck=$d/$v-long.ckpt
    runx "$d/$v-long.txt" "$x" --steps "$target" --synthetic 0 --log-json "$ref" --ckpt "$refck" || {
      fail "resume-$v" "$m" "the uninterrupted run to $target failed"; return; }
  fi
  if runx "$d/$v-resumed.txt" "$x" --resume "$d/$v-kill.ckpt" --steps "$target" \
       --log-json "$d/$v-resumed.jsonl" --ckpt "$d/$v-resumed.ckpt"; then
    chk log-exact "resume-$v" "$m" "$d/$v-resumed.jsonl" "$ref" "$((k + 1))" "$target"
    chk ckpt-same "resume-$v-ckpt" "$m" "$d/$v-resumed.ckpt" "$refck"
  else fail "resume-$v" "$m" "the resumed run failed (results/$m/$v-resumed.txt)"; fi
}

# DP on a mesh of one GPU with its all-reduces through NCCL (a
# communicator of one; DISTRT_COMM_ALWAYS=1, launched torchrun-style):
# NCCL loaded and used by a compiled step, which trains as the CPU does.
test_dp1() {
  local m=$1 d=$res/$1 x
  x=$(exe "$m" dp1)
  echo "== $m dp1: SGD on a mesh of 1, all-reduces through NCCL, 20 steps vs the CPU (relative $TOL)"
  if runx "$d/dp1.txt" env RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 \
       MASTER_PORT=$((20000 + RANDOM % 20000)) DISTRT_COMM_ALWAYS=1 DISTRT_LOG_LEVEL=info \
       "$x" --steps 20 --synthetic 0 --log-json "$d/dp1.jsonl"; then
    chk log "train-dp1-nccl" "$m" "$here/ref/$m/sgd.jsonl" "$d/dp1.jsonl" "$TOL"
    chk mem-estimate memory-estimate-dp1 "$m" "$here/ref/$m/dp1-estimate.txt" "$d/dp1.jsonl" "$MEM_TOL"
    local over="over NCCL"; [ -n "$fake" ] && over="over TCP"
    grep -q "$over" "$d/dp1.txt" || fail "dp1-transport" "$m" "the log does not say '$over' (results/$m/dp1.txt)"
  else fail "train-dp1-nccl" "$m" "the run failed (results/$m/dp1.txt)"; fi
}

# Fused attention (--fuse-attention=true, decision 62): dist.attention's
# loops as kernels with a thread per query (or key) row, against the CPU's
# AdamW reference (which fuses attention too: the CPU default), twice
# (bitwise: no atomics).
test_attn() {
  echo "== $1 attn: AdamW --fuse-attention=true, 20 steps vs the CPU (relative $TOL), twice (bitwise)"
  train_twice "$1" attn train-attn "$here/ref/$1/adamw.jsonl" "$TOL" &&
    chk mem-estimate memory-estimate-attn "$1" "$here/ref/$1/attn-estimate.txt" "$res/$1/attn-1.jsonl" "$MEM_TOL"
}

# train_twice M V CHECK REF TOL: variant V of model M, 20 steps within TOL
# of REF (check CHECK), then a second run bitwise equal to the first
# (determinism-V). Returns 1 when the first run failed.
train_twice() {
  local m=$1 v=$2 check=$3 ref=$4 tol=$5 d=$res/$1 x
  x=$(exe "$m" "$v")
  if runx "$d/$v-1.txt" "$x" --steps 20 --synthetic 0 --log-json "$d/$v-1.jsonl"; then
    chk log "$check" "$m" "$ref" "$d/$v-1.jsonl" "$tol"
  else fail "$check" "$m" "the run failed (results/$m/$v-1.txt)"; return 1; fi
  if runx "$d/$v-2.txt" "$x" --steps 20 --synthetic 0 --log-json "$d/$v-2.jsonl"; then
    chk log-exact "determinism-$v" "$m" "$d/$v-2.jsonl" "$d/$v-1.jsonl"
  else fail "determinism-$v" "$m" "the second run failed"; fi
  return 0
}

# Mixed precision (--precision=bf16): cuBLASLt's bf16 products with float32
# accumulation against the CPU's bf16 gemm. Both round the same float32
# inputs to bf16, but a float32 sum in another order can round an
# activation to the neighbouring bf16 value, so the bar is the one the
# CPU's data- and tensor-parallel bf16 runs meet against one rank (2e-3);
# a second run is bitwise identical.
BF16_TOL=2e-3
test_bf16() {
  local m=$1
  echo "== $m bf16: AdamW --precision=bf16, 20 steps vs the CPU's bf16 (relative $BF16_TOL), twice (bitwise)"
  train_twice "$m" bf16 train-bf16 "$here/ref/$m/bf16.jsonl" "$BF16_TOL" &&
    chk mem-estimate memory-estimate-bf16 "$m" "$here/ref/$m/bf16-estimate.txt" "$res/$m/bf16-1.jsonl" "$MEM_TOL"
}

test_gpt2_extra() {
  local m=gpt2-tiny d=$res/gpt2-tiny x
  x=$(exe "$m" adamw)
  echo "== $m adamw: 200 steps, device memory at step 200 vs step 2"
  if runx "$d/mem.txt" "$x" --steps 200 --synthetic 0 --log-json "$d/mem.jsonl"; then
    chk mem memory "$m" "$d/mem.jsonl" "$d/mem.txt" 2 200
  else fail memory "$m" "the 200-step run failed"; fi

  echo "== $m adamw: --trace of step 3 (the GPU's streams, event-timed)"
  if runx "$d/trace.txt" "$x" --steps 3 --synthetic 0 --trace "$d/trace.json" --trace-steps 3:3; then
    chk trace trace "$m" "$d/trace.json"
  else fail trace "$m" "the traced run failed (results/$m/trace.txt)"; fi

  echo "== $m adamw: the CPU's checkpoint of step 10 resumed here to step 20"
  if runx "$d/cpu-ckpt.txt" "$x" --resume "$here/ref/$m/adamw-ckpt" --steps 20 \
       --log-json "$d/cpu-ckpt.jsonl" --ckpt "$d/cpu-ckpt.ckpt"; then
    chk log cpu-ckpt "$m" "$here/ref/$m/adamw.jsonl" "$d/cpu-ckpt.jsonl" "$TOL" 11 20
  else fail cpu-ckpt "$m" "resuming the CPU checkpoint failed (results/$m/cpu-ckpt.txt)"; fi
  if [ -d "$d/adamw-1.ckpt" ]; then
    chk ckpt-layout ckpt-layout "$m" "$d/adamw-1.ckpt" "$here/ref/$m/adamw-ckpt"
  else fail ckpt-layout "$m" "no checkpoint of the GPU run"; fi

  echo "== $m adamw: --allow-tf32 (information only)"
  if runx "$d/tf32.txt" "$x" --steps 20 --synthetic 0 --allow-tf32 --log-json "$d/tf32.jsonl"; then
    chk log tf32 "$m" "$here/ref/$m/adamw.jsonl" "$d/tf32.jsonl" 1e30 > "$d/tf32-check.txt"
    sed -i '$d' "$GPU_CHECK_ROWS"   # keep it out of the pass/fail count ...
    chk row tf32 "$m" INFO "$(awk '/->/{print $5}' "$d/tf32-check.txt")" \
      "--allow-tf32 vs the CPU's fp32 (not a pass/fail check)"   # ... as an INFO row
  fi
}

main() {
  echo "GPU check: $here ($(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -n))"
  [ -f "$here/BUILD.txt" ] && sed -n '1,2p' "$here/BUILD.txt"
  if [ -n "$fake" ]; then
    echo "GPU_CHECK_FAKE_CUDA: running the CPU twins in $bin ($(cat "$bin/../TARGET.txt" 2>/dev/null || echo cpu) executables) instead of the cuda executables"
  fi
  command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  unpack || { echo "error: could not unpack the executables"; return 1; }

  # The first executable tells whether there is a GPU at all.
  local m=mlp probe=$res/probe.txt
  mkdir -p "$res/$m"
  # shellcheck disable=SC2046
  timeout "$T" "$(exe $m fwd)" $(fwd_args $m) --output-dir "$res/probe" > "$probe" 2>&1
  local rc=$?
  if [ $rc -eq 2 ]; then
    echo
    echo "NO GPU: $(exe $m fwd) exited with status 2:"
    sed 's/^/  /' "$probe"
    echo "Nothing was checked: run this folder on a machine with an NVIDIA GPU and driver."
    return 2
  fi
  [ $rc -ne 0 ] && { echo "the first executable failed (status $rc):"; sed 's/^/  /' "$probe"; }

  for m in "${models[@]}"; do
    mkdir -p "$res/$m"
    test_forward "$m"
    test_train "$m" sgd
    test_train "$m" adamw
    if [[ " $(variants "$m") " = *" dp1 "* ]]; then test_dp1 "$m"; fi
    if [[ " $(variants "$m") " = *" bf16 "* ]]; then test_bf16 "$m"; fi
    if [[ " $(variants "$m") " = *" attn "* ]]; then test_attn "$m"; fi
  done
  test_gpt2_extra

  if [ "$bench" = 1 ]; then
    echo
    echo "== benchmark: bash bench.sh"
    if bash "$here/bench.sh" "$here"; then
      chk row bench gpt2-small INFO "" "results/bench.md" > /dev/null
    else
      fail bench gpt2-small "bench.sh failed (see above and results/bench-*.txt)"
    fi
  fi

  # The checkpoints' tensors stay out of what comes back (their manifests,
  # with a CRC-32C per tensor, stay): GPU_CHECK_KEEP_CKPT=1 keeps them.
  if [ "${GPU_CHECK_KEEP_CKPT:-0}" = 0 ]; then
    find "$res" -name '*.safetensors' -path '*.ckpt/*' -delete
  fi

  echo
  echo "== summary ($res)"
  chk table "$GPU_CHECK_ROWS"
}

main 2>&1 | tee "$res/summary.txt"
exit "${PIPESTATUS[0]}"
