#!/usr/bin/env bash
# Installs everything dist-opt needs on a fresh Debian 12 machine, then configures and
# builds with CMake + Ninja into build/. Idempotent and quiet when all is present.
#
#   scripts/setup.sh            install packages (if missing) + configure + build
#   scripts/setup.sh --deps     install packages only
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/llvm-version.sh
source "$root/scripts/llvm-version.sh"

packages=(
  "libmlir-${LLVM_MAJOR}-dev" "mlir-${LLVM_MAJOR}-tools" "llvm-${LLVM_MAJOR}-dev"
  "llvm-${LLVM_MAJOR}-tools"
  libopenmpi-dev openmpi-bin
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
  python3-torch python3-onnx python3-numpy python3-venv python3-torchvision
  libopenblas-dev libdnnl-dev nlohmann-json3-dev
  ninja-build cmake g++ libgtest-dev
  "clang-${LLVM_MAJOR}" "libfuzzer-${LLVM_MAJOR}-dev" "libclang-rt-${LLVM_MAJOR}-dev"
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# onnxruntime (a reference executor and the speed bar) comes from PyPI into
# .venv; --system-site-packages keeps Debian's torch, onnx and numpy 1.24
# visible; onnxruntime 1.19.2 loads with that numpy 1.24 (checked).
venv="$root/.venv"
if ! "$venv/bin/python3" -c "import onnxruntime" 2>/dev/null; then
  echo "setup: installing onnxruntime into $venv"
  /usr/bin/python3 -m venv --system-site-packages "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check onnxruntime==1.19.2
fi
# The third-party model tests (test/Models) build Hugging Face, timm and
# torchvision models from configs (random weights, no downloads). All with
# --no-deps, so pip never replaces Debian's torch 1.13 or numpy 1.24 (these
# versions import and export the test models with them; checked). tokenizers
# is not needed (no tokenizer is used); pyyaml, requests and torchvision
# come from Debian.
if ! "$venv/bin/python3" -c "import transformers, timm, torchvision" 2>/dev/null; then
  echo "setup: installing transformers and timm into $venv"
  "$venv/bin/pip" install -q --disable-pip-version-check --no-deps \
    transformers==4.40.2 timm==0.9.16 huggingface-hub==0.23.4 safetensors==0.4.3 \
    regex==2024.5.15 tqdm==4.66.4 filelock==3.15.4 fsspec==2024.6.1
fi

[ "${1:-}" = "--deps" ] && exit 0

build="${DIST_BUILD_DIR:-$root/build}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-Release}" \
    -DMLIR_DIR="$(llvm-config-${LLVM_MAJOR} --libdir)/cmake/mlir" >/dev/null
fi
# Ninja's progress lines are noise on a no-op or CI build; errors still show.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! cmake --build "$build" -- -j"$(nproc)" >"$log" 2>&1; then
  cat "$log"
  echo "setup: build failed" >&2
  exit 1
fi
