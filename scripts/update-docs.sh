#!/usr/bin/env bash
# Regenerates the checked-in references (docs/dialects/, docs/passes/) from
# ODS; test/Docs checks they are current.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="${DIST_BUILD_DIR:-$root/build}"
cmake --build "$build" --target mlir-doc >/dev/null
mkdir -p "$root/docs/dialects" "$root/docs/passes"
cp "$build/docs/Dialects/Dist.md" "$root/docs/dialects/Dist.md"
cp "$build/docs/Passes/DistTransformsPasses.md" "$root/docs/passes/Transforms.md"
cp "$build/docs/Passes/DistConversionPasses.md" "$root/docs/passes/Conversion.md"
cp "$build/docs/Passes/DistShardingPasses.md" "$root/docs/passes/Sharding.md"
cp "$build/docs/Passes/DistCudaPasses.md" "$root/docs/passes/Cuda.md"
echo "updated docs/dialects/Dist.md docs/passes/{Transforms,Conversion,Sharding,Cuda}.md"
