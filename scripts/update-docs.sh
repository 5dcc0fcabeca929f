#!/usr/bin/env bash
# Regenerates the checked-in dialect reference (docs/dialects/) from ODS.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="${DIST_BUILD_DIR:-$root/build}"
cmake --build "$build" --target mlir-doc >/dev/null
mkdir -p "$root/docs/dialects"
cp "$build/docs/Dialects/Dist.md" "$root/docs/dialects/Dist.md"
echo "updated docs/dialects/Dist.md"
