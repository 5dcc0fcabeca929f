"""One rank of a training job is killed or stopped at a random step; the
job must end within the collective timeout, say which rank, and leave a
checkpoint that resumes bit for bit.

usage: rank_failure.py MPIRUN NP SIGNAL RANK TIMEOUT SEED EXE WORKDIR

MPIRUN is mpirun, or scripts/launch.py (torchrun-style, over TCP).

Starts `MPIRUN -np NP EXE` training with a checkpoint every 10 steps, waits
until its JSON log passes a step drawn from SEED (30..90), sends SIGNAL
(KILL or STOP) to the process of world rank RANK, and measures how long
the job takes to end. Prints the step, the exit status, whether it ended
within TIMEOUT + 15 s, the job's `error:` lines and mpirun's line about a
killed rank. A stopped process outlives mpirun (its SIGTERM waits while it
is stopped): it is killed and reported. Then resumes from the newest
checkpoint for 10 more steps and compares them with an uninterrupted run
of the same steps (trainer_check.py same: identical losses, grad norms
and learning rates).
"""
import json
import os
import random
import signal
import subprocess
import sys
import time

mpirun, np_, sig, rank, timeout, seed, exe, work = sys.argv[1:9]
np_, rank, timeout = int(np_), int(rank), float(timeout)
os.makedirs(work, exist_ok=True)
ckpt, log = os.path.join(work, "ck"), os.path.join(work, "log.jsonl")
target = random.Random(int(seed)).randint(30, 90)


def launch(args, **kw):
    return subprocess.Popen(mpirun.split() + ["-np", str(np_), exe] + args,
                            stdin=subprocess.DEVNULL, **kw)


def last_step(path):
    try:
        with open(path) as f:
            lines = f.read().splitlines()
        return json.loads(lines[-1])["step"] if lines else 0
    except (OSError, ValueError, KeyError, IndexError):
        return 0


def ranks_of(path):
    """{world rank: pid} of the processes running `path`."""
    found = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                argv = f.read().split(b"\0")
            if not argv or os.path.realpath(argv[0].decode()) != os.path.realpath(path):
                continue
            with open("/proc/%s/environ" % pid, "rb") as f:
                env = dict(e.split(b"=", 1) for e in f.read().split(b"\0") if b"=" in e)
            rank_of = env.get(b"OMPI_COMM_WORLD_RANK", env.get(b"RANK"))
            found[int(rank_of)] = int(pid)
        except (OSError, KeyError, ValueError, TypeError):
            continue
    return found


out = open(os.path.join(work, "job.out"), "w")
err_path = os.path.join(work, "job.err")
job = launch(["--steps", "100000", "--synthetic", "1", "--ckpt", ckpt,
              "--save-every", "10", "--log-json", log,
              "--collective-timeout", "%g" % timeout],
             stdout=out, stderr=open(err_path, "w"))
deadline = time.time() + 120
while last_step(log) < target and job.poll() is None and time.time() < deadline:
    time.sleep(0.01)
pids = ranks_of(exe)
if rank not in pids or job.poll() is not None:
    print("FAILED: rank %d is not running (log at step %d)" % (rank, last_step(log)))
    job.kill()
    sys.exit(1)
os.kill(pids[rank], getattr(signal, "SIG" + sig))
start = time.time()
print("signal %s to rank %d of %d after step %d" % (sig, rank, np_, last_step(log)))
try:
    status = job.wait(timeout=timeout + 60)
except subprocess.TimeoutExpired:
    status = None
took = time.time() - start
left = ranks_of(exe)
for pid in left.values():
    os.kill(pid, signal.SIGKILL)
if status is None:
    job.kill()
    print("FAILED: the job still runs %.0f s after the signal" % took)
    sys.exit(1)
print("job ended with status %d, %s the limit (%.0f s + 15 s)" %
      (status, "within" if took <= timeout + 15 else "NOT within", timeout))
print("processes left behind: %s" % (sorted(left) or "none"))
with open(err_path) as f:
    for line in f:
        if line.startswith("error:") or "noticed that process" in line:
            print(line.strip())

# The newest complete checkpoint resumes exactly as the run would have gone.
saved = sorted(d for d in os.listdir(ckpt) if d.startswith("step-"))
resumed_log, ref_log = os.path.join(work, "resumed.jsonl"), os.path.join(work, "ref.jsonl")
newest = None
for d in reversed(saved):
    if os.path.exists(os.path.join(ckpt, d, "manifest.json")):
        newest = int(d[len("step-"):])
        break
if newest is None:
    print("FAILED: no complete checkpoint in %s" % saved)
    sys.exit(1)
end = newest + 10
for args, path in ((["--resume", ckpt], resumed_log), (["--synthetic", "1"], ref_log)):
    run = launch(args + ["--steps", str(end), "--log-json", path],
                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _, errors = run.communicate(timeout=300)
    if run.returncode != 0:
        print("FAILED: %s exited with %d: %s" % (args[0], run.returncode, errors[-2000:]))
        sys.exit(1)
print("resumed from the checkpoint of step %d (of %d written)" % (newest, len(saved)))
sys.stdout.flush()
checker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "trainer_check.py")
sys.exit(subprocess.call([sys.executable, checker, "same", ref_log, resumed_log]))
