"""PyTorch 1.13 baseline for bench/dp-scaling.sh: the median time of one
AdamW training step of MODEL (zero_grad, forward, backward, step) at BATCH
samples per process, after two warm-up steps, on one thread per process:
`single` in this process, `ddp` in 2 processes under DistributedDataParallel
(gloo backend, the CPU one). Prints `pytorch-<mode>: <median ms>` (rank 0's).

usage: ddp_baseline.py MODEL BATCH STEPS single|ddp
"""
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "examples", "onnx"))
import models  # noqa: E402


def run(rank, world, name, batch, steps):
    torch.set_num_threads(1)
    module, inputs, _, _ = models.build(name)
    torch.manual_seed(rank)
    inputs = [torch.randint(0, int(t.max()) + 1, (batch,) + tuple(t.shape[1:]))
              for t in inputs]
    if world > 1:
        dist.init_process_group("gloo", rank=rank, world_size=world)
        # gloo cannot broadcast bool buffers (GPT-2's causal mask); they
        # are constants, identical on every rank.
        ddp = torch.nn.parallel.DistributedDataParallel
        ddp._set_params_and_buffers_to_ignore_for_model(
            module, [n for n, b in module.named_buffers() if b.dtype == torch.bool])
        module = ddp(module)
    optimizer = torch.optim.AdamW(module.parameters(), lr=1e-4)
    times = []
    for i in range(steps + 2):
        start = time.perf_counter()
        optimizer.zero_grad()
        loss = module(*inputs)[0]
        loss.backward()
        optimizer.step()
        if i >= 2:
            times.append((time.perf_counter() - start) * 1e3)
    if rank == 0:
        print("pytorch-%s: %.3f" % ("ddp" if world > 1 else "single",
                                    statistics.median(times)), flush=True)
    if world > 1:
        dist.destroy_process_group()


if __name__ == "__main__":
    name, batch, steps, mode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    if mode == "single":
        run(0, 1, name, batch, steps)
    else:
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", "29531")
        mp.spawn(run, args=(2, name, batch, steps), nprocs=2)
