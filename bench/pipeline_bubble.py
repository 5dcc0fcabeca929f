"""One row of bench/pipeline-bubble.sh: each rank's bubble (time waiting
inside its step spans over the step time, median over the traced steps),
GPipe's formula, each stage's predicted activation memory, the step time.

    pipeline_bubble.py SCHEDULE M S PREFIX
    (PREFIX.trace.rank<r>.json, PREFIX.explain, PREFIX.jsonl)
"""
import json
import re
import statistics
import sys

schedule, m, s, prefix = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]


def bubble(path):
    events = json.load(open(path))
    events = events["traceEvents"] if isinstance(events, dict) else events
    tracks = {e["tid"]: e["args"]["name"] for e in events
              if e.get("ph") == "M" and e.get("name") == "thread_name"}
    spans = [e for e in events if e.get("ph") == "X"]
    steps = [e for e in spans if tracks.get(e["tid"]) == "compute"
             and e["name"].startswith("step ")]
    waits = [e for e in spans if tracks.get(e["tid"]) == "collectives (waiting)"]
    fractions = []
    for step in steps:
        begin, end = step["ts"], step["ts"] + step["dur"]
        waited = sum(max(0, min(end, w["ts"] + w["dur"]) - max(begin, w["ts"]))
                     for w in waits)
        fractions.append(waited / step["dur"])
    return statistics.median(fractions)


bubbles = [bubble("%s.trace.rank%d.json" % (prefix, r)) for r in range(s)]
memory = re.findall(r"memory of @train_step_stage\d+ .* activations ([0-9.]+)",
                    open(prefix + ".explain").read())
ms = statistics.median(json.loads(l)["ms"] for l in list(open(prefix + ".jsonl"))[2:])
print("%-8s %-2d %-24s %-14s %-35s %.1f" % (
    schedule, m, " ".join("%.2f" % b for b in bubbles),
    "%.2f" % ((s - 1) / (m + s - 1)), " ".join(memory), ms))
