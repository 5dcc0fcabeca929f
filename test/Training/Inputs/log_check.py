"""Checks on a trainer's --log-json file.

usage: log_check.py distinct LOG   every step's loss differs from the others
"""
import json
import sys

what, log = sys.argv[1:3]
losses = [json.loads(line)["loss"] for line in open(log)]
if what == "distinct":
    print("%d steps, %d distinct losses" % (len(losses), len(set(losses))))
    sys.exit(0 if len(set(losses)) == len(losses) else 1)
raise SystemExit("unknown check '%s'" % what)
