"""Writes a --trace file of one 10 ms step (the trainer's format: Chrome
trace events, GPU spans on a 'GPU compute stream' track) with two
generated kernels and a product, and the kernel-shapes.py --tsv of the
same program, for test/Cuda/bench-kernel-rates.test."""
import json
import sys

trace, tsv = sys.argv[1], sys.argv[2]
events = [
    {"ph": "M", "name": "thread_name", "pid": 0, "tid": 1, "args": {"name": "host"}},
    {"ph": "M", "name": "thread_name", "pid": 0, "tid": 2, "args": {"name": "GPU compute stream"}},
    {"ph": "X", "name": "step 4", "pid": 0, "tid": 1, "ts": 0, "dur": 10000},
    # softmax: 2 launches of 1000 us: 2 x 1.675 GB in 2 ms = 1675 GB/s.
    {"ph": "X", "name": "train_step_r1__softmax", "pid": 0, "tid": 2, "ts": 100, "dur": 1000},
    {"ph": "X", "name": "train_step_r1__softmax", "pid": 0, "tid": 2, "ts": 1200, "dur": 1000},
    # a reduction of 4000 us for 0.134 GB: 33.5 GB/s.
    {"ph": "X", "name": "train_step_k7__norm", "pid": 0, "tid": 2, "ts": 2300, "dur": 4000},
    {"ph": "X", "name": "gemm", "pid": 0, "tid": 2, "ts": 6400, "dur": 3000,
     "args": {"op": "NN", "m": 64, "n": 64, "k": 64, "batch": 1}},
    # not in the IR's table
    {"ph": "X", "name": "train_step_k9__other", "pid": 0, "tid": 2, "ts": 9500, "dur": 100},
]
json.dump({"traceEvents": events}, open(trace, "w"))
with open(tsv, "w") as f:
    f.write("kernel\tlaunches\tmin_threads\tbytes_passed\tsector_bytes\tused_bytes\n")
    f.write("train_step_r1__softmax\t2\t1024\t3000000000\t3350000000\t3300000000\n")
    f.write("train_step_k7__norm\t1\t256\t134000000\t134000000\t134000000\n")
