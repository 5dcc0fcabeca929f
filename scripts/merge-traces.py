#!/usr/bin/env python3
"""Joins the per-rank trace files a trainer writes under a mesh (--trace
FILE gives FILE.rank0.json, FILE.rank1.json, ...) into one Chrome trace
that Perfetto (ui.perfetto.dev) or chrome://tracing opens with one process
per rank, their times aligned (wall-clock microseconds).

usage: scripts/merge-traces.py OUT.json RANK_FILE.json...
"""
import json
import sys


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out, inputs = argv[1], argv[2:]
    events = []
    for path in inputs:
        try:
            with open(path) as f:
                events += json.load(f)["traceEvents"]
        except (OSError, ValueError, KeyError) as e:
            print("error: %s: not a trace file (%s)" % (path, e), file=sys.stderr)
            return 1
    with open(out, "w") as f:
        json.dump({"displayTimeUnit": "ms", "traceEvents": events}, f)
    print("%s: %d events of %d ranks" % (out, len(events), len({e.get("pid") for e in events})))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
