"""Stops a trainer with a signal mid-run and checks how it stops (train-interrupt.test).

usage: interrupt_check.py [--ranks] lost SIGNAL STATUS DIR CMD... -- ARGS...
       interrupt_check.py [--ranks] saved SIGNAL STATUS DIR CMD... -- ARGS...

Runs `CMD --steps 1000000000 ARGS --log-json DIR/stopped.jsonl` (`saved`:
with `--ckpt DIR/ck` too), waits for its `step 2 |` line on stdout, sends it
SIGNAL (INT or TERM), reads stdout to the end and checks that it exits with
STATUS. With --ranks (CMD = `mpirun ... trainer`), the signal goes to the
processes mpirun started, as a batch system's does, one after the other a
few milliseconds apart, not to mpirun (Open MPI's mpirun ends the job on
SIGTERM and SIGINT: it stops reading the ranks' output and kills them a
second later, see docs/trainer-abi.md). Prints its stderr,
then one line per check. `saved` then checks the checkpoint of the step the
message names (the newest in DIR/ck), resumes from it for 3 more steps, and
checks that the stopped run's log and the resumed run's are, bit for bit,
an uninterrupted run's of as many steps (`CMD --steps N+3 ARGS`).

Exits 1 on a failure, or if the run has not ended 60 s after the signal.
"""
import json
import os
import re
import signal
import subprocess
import sys
import time

failures = 0


def report(ok, what):
    global failures
    failures += not ok
    print("%s %s" % ("ok" if ok else "FAIL", what))


def read_log(path):
    with open(path) as f:
        # Without what a run measures (time, memory).
        return [{k: v for k, v in json.loads(line).items()
                 if k not in ("ms", "tensor_peak_mib")} for line in f]


def leaves(pid):
    """The descendants of `pid` without children of their own: the ranks,
    under `timeout ... mpirun`."""
    parents = {}
    for entry in os.listdir("/proc"):
        try:
            with open("/proc/%s/stat" % entry) as f:
                parents[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    found, todo = [], [pid]
    while todo:
        kids = [p for p, parent in parents.items() if parent == todo[-1]]
        todo.pop()
        for kid in kids:
            if any(parent == kid for parent in parents.values()):
                todo.append(kid)
            else:
                found.append(kid)
    return sorted(found)


def stop(cmd, signum, status, d, ranks):
    """Runs `cmd`, signals it after its step 2 line; returns its stderr."""
    err_path = os.path.join(d, "stderr.txt")
    with open(err_path, "wb") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err)
        deadline = time.monotonic() + 60
        lines = 0
        for line in proc.stdout:
            lines += 1
            if line.startswith(b"step 2 |"):
                if not ranks:
                    proc.send_signal(signum)
                    break
                # The ranks get it at different steps; they must agree.
                pids = leaves(proc.pid)
                for i, pid in enumerate(reversed(pids)):
                    time.sleep(0.005 * (i > 0))
                    os.kill(pid, signum)
                print("signalled %d processes" % len(pids))
                break
            if time.monotonic() > deadline:
                break
        else:
            print("FAIL no 'step 2' line on stdout")
        for line in proc.stdout:  # drain, so that the trainer never blocks
            lines += 1
        try:
            got = proc.wait(timeout=max(1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            got = proc.wait()
            print("FAIL still running 60 s after the signal")
    text = open(err_path).read()
    sys.stdout.write(text)
    report(got == status, "exit status %d (expected %d) after %d step lines"
           % (got, status, lines))
    return text


def main():
    argv = sys.argv[1:]
    ranks = argv[0] == "--ranks"
    if ranks:
        argv = argv[1:]
    mode, name, status, d = argv[:4]
    rest = argv[4:]
    split = rest.index("--")
    cmd, args = rest[:split], rest[split + 1:]
    signum = {"INT": signal.SIGINT, "TERM": signal.SIGTERM}[name]
    os.makedirs(d, exist_ok=True)
    stopped_log = os.path.join(d, "stopped.jsonl")
    ck = os.path.join(d, "ck")
    run = cmd + ["--steps", "1000000000"] + args + ["--log-json", stopped_log]
    if mode == "saved":
        run += ["--ckpt", ck]
    text = stop(run, signum, int(status), d, ranks)
    m = re.search(r"interrupted by SIG\w+ after step (\d+)", text)
    if not m:
        report(False, "no 'interrupted' message")
        return
    step = int(m.group(1))
    # Asynchronous data parallelism logs updates, which lag the steps: the
    # message names the last one applied.
    applied = re.search(r"updates 1 to (\d+) applied", text)
    logged = int(applied.group(1)) if applied else step
    log = read_log(stopped_log)
    report([e["step"] for e in log] == list(range(1, logged + 1)),
           "the log holds steps 1 to the one the message names")
    if mode != "saved":
        report(not os.path.exists(ck), "no checkpoint directory")
        return
    entries = sorted(e for e in os.listdir(ck))
    report(entries == ["step-%08d" % step],
           "the checkpoint of that step, alone in the directory (%s)" % " ".join(entries))
    # Resume for 3 more steps; an uninterrupted run of as many steps must
    # log the same values at every step.
    resumed_log = os.path.join(d, "resumed.jsonl")
    full_log = os.path.join(d, "full.jsonl")
    last = str(step + 3)
    subprocess.run(cmd + ["--steps", last, "--resume", ck, "--log-json", resumed_log],
                   stdout=subprocess.DEVNULL, check=True)
    subprocess.run(cmd + ["--steps", last] + args + ["--log-json", full_log],
                   stdout=subprocess.DEVNULL, check=True)
    report(log + read_log(resumed_log) == read_log(full_log),
           "stopped, then resumed: the uninterrupted run's steps, bit for bit")


main()
sys.exit(1 if failures else 0)
