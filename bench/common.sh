# Sourced by the benchmarks that run CPU ranks under MPI: one thread per
# process (as distrt-calibrate measures), the launcher as the array
# `mpirun` (root needs --allow-run-as-root; more ranks than cores
# --oversubscribe), and export_models WORKDIR MODEL... exporting the example
# models (examples/onnx/export.py) that WORKDIR does not hold yet.
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
mpirun=(mpirun --oversubscribe)
[ "$(id -u)" = 0 ] && mpirun+=(--allow-run-as-root)

export_models() {
  local work=$1 model
  shift
  for model in "$@"; do
    [ -f "$work/$model.onnx" ] ||
      /usr/bin/python3 "$root/examples/onnx/export.py" "$model" "$work/$model.onnx" 2> /dev/null
  done
}
