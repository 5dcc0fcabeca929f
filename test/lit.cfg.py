# The lit suite of dist-opt: FileCheck tests for the dialect, passes and tools.
import os
import subprocess

import lit.formats
from lit.llvm import llvm_config

config.name = "DIST"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.dist_obj_root, "test")
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "Inputs", "unit"]

for feature in config.dist_features:
    if feature:
        config.available_features.add(feature)

config.substitutions.append(("%dist_src_root", config.dist_src_root))
config.substitutions.append(("%dist_obj_root", config.dist_obj_root))
config.substitutions.append(("%python", config.python_executable))
# %cuda_home: the CUDA toolkit that --target=cuda builds kernels with; the
# tests see it as $CUDA_HOME too.
cuda_home = os.environ.get("CUDA_HOME") or "/usr/local/cuda"
config.substitutions.append(("%cuda_home", cuda_home))
config.environment["CUDA_HOME"] = cuda_home
config.substitutions.append(("%onnx_import_fuzzer", config.onnx_import_fuzzer))

# %mpirun: the MPI launcher of the `mpi` feature; Open MPI's also needs to be
# allowed to run as root (containers) and to start more processes than
# there are cores (the tests' meshes are small).
mpiexec = getattr(config, "mpiexec", "")
if "mpi" in config.available_features and mpiexec:
    try:
        version = subprocess.run([mpiexec, "--version"], capture_output=True,
                                 text=True).stdout
    except OSError:
        version = ""
    if "Open MPI" in version or "OpenRTE" in version:
        mpiexec += " --allow-run-as-root --oversubscribe"
    # Each job in a temporary directory of its own (the script says why).
    mpiexec = os.path.join(config.test_source_root, "mpirun-own-tmpdir.sh") \
        + " " + mpiexec
    config.substitutions.append(("%mpirun", mpiexec))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(
    ["dist-opt", "dist-compile", "distrt-calibrate"],
    [config.dist_tools_dir, config.llvm_tools_dir])

# oneDNN (libdnnl.so.2, which distrt opens for some products) and whether
# the CPU multiplies bfloat16 natively (what distrt hands oneDNN by default).
try:
    import ctypes
    ctypes.CDLL("libdnnl.so.2")
    config.available_features.add("onednn")
except OSError:
    pass
try:
    with open("/proc/cpuinfo") as cpuinfo:
        flags = set(cpuinfo.read().split())
    if flags & {"avx512_bf16", "amx_bf16"}:
        config.available_features.add("cpu-bf16")
except OSError:
    pass

# Network namespaces (root, iproute2, unshare): test/Parallel's multi-host
# test makes "hosts" of them.
probe = "dist-lit-probe-%d" % os.getpid()
try:
    if os.geteuid() == 0 and subprocess.call(
            ["ip", "netns", "add", probe], stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL) == 0:
        if subprocess.call(["ip", "netns", "exec", probe, "unshare", "--uts", "true"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) == 0:
            config.available_features.add("netns")
        subprocess.call(["ip", "netns", "del", probe], stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL)
except OSError:
    pass

# onnxruntime lives in the venv scripts/setup.sh creates (with Debian's torch
# and numpy visible through --system-site-packages).
ort_python = os.path.join(config.dist_src_root, ".venv", "bin", "python3")
if os.path.exists(ort_python) and subprocess.call(
        [ort_python, "-c", "import onnxruntime, torch"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) == 0:
    config.available_features.add("onnxruntime")
    config.substitutions.append(("%ort_python", ort_python))

# transformers, timm and torchvision (test/Models: third-party models built
# from configs) are in the same venv; %models_python is that interpreter.
if "onnxruntime" in config.available_features and subprocess.call(
        [ort_python, "-c", "import transformers, timm, torchvision"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) == 0:
    config.available_features.add("transformers")
    config.substitutions.append(("%models_python", ort_python))
