"""Runs a command and checks its exit code: usage expect_exit.py CODE CMD [ARG]...

The command's stdout and stderr pass through; exits 0 if the command exited
with CODE, else 1 with a message (so a crash or a wrong code fails a test).
"""
import subprocess
import sys

code = int(sys.argv[1])
sys.stdout.flush()
got = subprocess.run(sys.argv[2:]).returncode
if got != code:
    print("expect_exit.py: expected exit code %d, got %d" % (code, got), file=sys.stderr)
    sys.exit(1)
