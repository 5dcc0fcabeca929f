#!/usr/bin/env bash
# Plans GPT-3-shaped models on modelled H100 meshes (--plan-only, nothing
# runs) and prints, per case, the chosen plan, its predicted step, the
# tokens per second and model FLOP/s per GPU it implies (6 N tokens / step
# time / GPUs, N = 12 L h^2 + V h), the planner's own time, and the
# published Megatron-LM configuration to compare with (bench/README.md).
#   bench/plan-at-scale.sh [OUT_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-/tmp/plan-at-scale}"
mkdir -p "$out"
compile="$root/build/bin/dist-compile"
flags=(--train --optimizer=adamw --precision=bf16 --parallel=auto --device-spec=h100-sxm --plan-only --plan-search=layers --time-phases)
# preset batch mesh memory(GiB, 0 = the device's)
cases=(
  "gpt3-1.3b 512 8 0"
  "gpt3-1.3b 512 8x8 0"
  "gpt3-13b 1024 8x8 0"
  "gpt3-13b 1024 32x8 0"
  "gpt3-175b 1536 128x8 0"
  "gpt3-175b 1536 128x8 1000000"
)
printf "%-10s %-7s %-6s %-40s %10s %10s %8s %7s\n" model mesh memory plan "step ms" "tokens/s" "TF/GPU" "plan s"
for c in "${cases[@]}"; do
  read -r preset batch mesh memory <<< "$c"
  model="$out/$preset.mlir"
  [ -f "$model" ] || /usr/bin/python3 "$root/examples/gpt/make_gpt.py" --preset "$preset" --batch "$batch" > "$model"
  log="$out/$preset-$mesh-$memory.txt"
  extra=()
  [ "$memory" != 0 ] && extra=(--memory-per-device="$memory")
  "$compile" "$model" "${flags[@]}" --mesh="$mesh" "${extra[@]}" > "$log" 2>&1 || true
  /usr/bin/python3 - "$log" "$preset" "$batch" "$mesh" "$memory" <<'PY'
import re, sys
log, preset, batch, mesh, memory = sys.argv[1:]
text = open(log).read()
L, h, S = {"gpt3-1.3b": (24, 2048, 2048), "gpt3-13b": (40, 5120, 2048),
           "gpt3-175b": (96, 12288, 2048)}[preset]
V = 50304
n = 12 * L * h * h + V * h
gpus = 1
for d in mesh.split("x"):
    gpus *= int(d)
plan_s = re.search(r"plan +([0-9.]+) s", text)
m = re.search(r"^\s+1\.\s+(.*?)\s+([0-9.e+]+) ms \(", text, re.M)
mem = "80GB" if memory == "0" else "none"
if not m:
    why = "no plan fits" if "no plan" in text else text.strip().splitlines()[-1][:60]
    print("%-10s %-7s %-6s %-40s %10s %10s %8s %7s" % (preset, mesh, mem, why, "-", "-", "-",
          plan_s.group(1) if plan_s else "-"))
    sys.exit(0)
ms = float(m.group(2))
tokens = int(batch) * S
print("%-10s %-7s %-6s %-40s %10.0f %10.3g %8.0f %7s" % (
    preset, mesh, mem, " ".join(m.group(1).split()), ms, tokens / (ms / 1e3),
    6 * n * tokens / (ms / 1e3) / gpus / 1e12, plan_s.group(1)))
PY
done
