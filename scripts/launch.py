#!/usr/bin/env python3
"""Starts the processes of a dist-opt program torchrun-style, without MPI.

    scripts/launch.py -n 4 ./model --steps 10
    scripts/launch.py -n 2 --nnodes 2 --node-rank 0 --master HOST:PORT ./model
    scripts/launch.py -n 2 --nnodes 2 --node-rank 1 --master HOST:PORT ./model

Each process gets what torchrun sets: RANK, WORLD_SIZE, LOCAL_RANK,
LOCAL_WORLD_SIZE, MASTER_ADDR and MASTER_PORT; the program (distrt) then
connects its ranks over TCP. On one node the master defaults to 127.0.0.1
and a free port. Exits with the status of the first process that fails (0 if all
succeed); a process that fails makes the program's other ranks fail
too (their connections to it close); as torchrun does, the launcher then
ends the processes still running 3 s later (SIGTERM, then SIGKILL after 3
s more: a stopped process ends too). Needs only Python 3: `torchrun
--no_python` does the same where PyTorch is.
"""

import argparse
import os
import signal
import socket
import subprocess
import sys
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "-np", "--nproc-per-node", type=int, required=True,
                        help="processes on this node")
    parser.add_argument("--nnodes", type=int, default=1)
    parser.add_argument("--node-rank", type=int, default=0)
    parser.add_argument("--master", default="",
                        help="HOST:PORT of rank 0 (required with --nnodes > 1)")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command to run")
    if args.nproc_per_node < 1 or args.nnodes < 1 or \
            not 0 <= args.node_rank < args.nnodes:
        parser.error("need -n >= 1, --nnodes >= 1, 0 <= --node-rank < --nnodes")
    if args.master:
        host, _, port = args.master.rpartition(":")
        if not host or not port.isdigit():
            parser.error(f"--master {args.master}: expected HOST:PORT")
    elif args.nnodes > 1:
        parser.error("--nnodes > 1 needs --master HOST:PORT (rank 0's node)")
    else:
        host, port = "127.0.0.1", str(free_port())

    world = args.nproc_per_node * args.nnodes
    children = []
    for local in range(args.nproc_per_node):
        env = dict(os.environ,
                   RANK=str(args.node_rank * args.nproc_per_node + local),
                   WORLD_SIZE=str(world), LOCAL_RANK=str(local),
                   LOCAL_WORLD_SIZE=str(args.nproc_per_node),
                   MASTER_ADDR=host, MASTER_PORT=port)
        try:
            children.append(subprocess.Popen(command, env=env))
        except OSError as e:
            print(f"error: launch.py: cannot run {command[0]}: {e}",
                  file=sys.stderr)
            for child in children:
                child.kill()
            return 127

    def forward(signum, _frame):
        for child in children:
            if child.poll() is None:
                child.send_signal(signum)
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, forward)

    # Wait for every process; after the first failure, give the others 3 s
    # to end on their own (distrt ends them: their connections close), then
    # SIGTERM, then SIGKILL. The status is the first failure's, in the order
    # the processes ended, not counting those the launcher ended.
    failed_at, status, ended_by_us = None, 0, set()
    running = list(children)
    while running:
        for child in list(running):
            code = child.poll()
            if code is None:
                continue
            running.remove(child)
            if code and child.pid not in ended_by_us:
                failed_at = failed_at or time.time()
                if not status:
                    status = 128 - code if code < 0 else code
        if failed_at is not None:
            late = time.time() - failed_at
            for child in running:
                if late > 6:
                    child.kill()
                elif late > 3 and child.pid not in ended_by_us:
                    ended_by_us.add(child.pid)
                    child.terminate()
        time.sleep(0.05)
    return status


if __name__ == "__main__":
    sys.exit(main())
