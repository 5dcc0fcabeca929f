#!/usr/bin/env bash
# Sets up (installs missing packages, configures, builds) and runs every test:
# the lit suite (FileCheck, diagnostics, examples, docs) and the GoogleTest
# unit tests, in one lit run. Ends with "N passed, N failed, N skipped".
#
#   scripts/test.sh              all tests
#   scripts/test.sh LIT_ARGS...  extra lit arguments, e.g. --filter=canonicalize
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/llvm-version.sh
source "$root/scripts/llvm-version.sh"
build="${DIST_BUILD_DIR:-$root/build}"

"$root/scripts/setup.sh"
# Test-only targets (unit tests, generated docs, the instrumented fuzzer
# build) that `all` does not build.
deps_log=$(mktemp)
if ! cmake --build "$build" --target dist-test-deps -- -j"$(nproc)" >"$deps_log" 2>&1; then
  cat "$deps_log"
  rm -f "$deps_log"
  echo "test.sh: building the test dependencies failed" >&2
  exit 1
fi
rm -f "$deps_log"

# lit runs the slowest tests first when it knows their times: from the build
# tree's last run, or on a clean clone from test/.lit_test_times.txt (a copy
# of one, refreshed now and then; only the order depends on it).
lit="$(llvm-config-${LLVM_MAJOR} --bindir)/lit"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
summary="$build/onnx-node-tests.txt"  # written by test/OnnxNodeTests
rm -f "$summary"
set +e
"$lit" -sv "$@" "$build/test" "$build/test/unit" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e

# lit's summary as the one closing line every CI reader understands.
count() { sed -nE "s/^ *$1 *: *([0-9]+).*/\1/p" "$log" | head -n1; }
passed=$(( $(count Passed || true) + 0 ))
failed=$(( $(count Failed || true) + $(count Unresolved || true) + $(count "Timed Out" || true) + $(count "Unexpectedly Passed" || true) + 0 ))
skipped=$(( $(count Unsupported || true) + $(count Skipped || true) + $(count "Expectedly Failed" || true) + 0 ))
[ -f "$summary" ] && cat "$summary"
echo "tests: ${passed} passed, ${failed} failed, ${skipped} skipped"
if [ "$passed" -eq 0 ] && [ "$status" -eq 0 ]; then
  echo "test.sh: lit ran no test" >&2
  exit 1
fi
exit "$status"
