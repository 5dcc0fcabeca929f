"""Forward-pass baselines for bench/forward-cpu.sh: PyTorch 1.13 eager and
onnxruntime on the same model, inputs and thread count.

usage: forward_baselines.py MODEL MODEL.onnx THREADS RUNS INPUT_DIR

Prints `pytorch: <median ms>` and `onnxruntime: <median ms>`: the median of
RUNS timed forwards after one warm-up, as the executable's --benchmark does.
"""
import os
import statistics
import sys
import time

import numpy as np
import onnxruntime
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "examples", "onnx"))
import models  # noqa: E402


def median_ms(fn, runs):
    fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main():
    name, onnx_path, threads, runs, input_dir = sys.argv[1:6]
    threads, runs = int(threads), int(runs)
    torch.set_num_threads(threads)
    module, inputs, names, _ = models.build(name)
    module.train()  # as exported; the models have no dropout
    for n, t in zip(names, inputs):
        np.save(os.path.join(input_dir, n + ".npy"), t.numpy())
    with torch.no_grad():
        print("pytorch: %.3f" % median_ms(lambda: module(*inputs), runs))
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(
        onnx_path, options, providers=["CPUExecutionProvider"])
    feeds = {n: t.numpy() for n, t in zip(names, inputs)}
    print("onnxruntime: %.3f" % median_ms(lambda: session.run(None, feeds),
                                          runs))


if __name__ == "__main__":
    main()
