"""Summarizes a --trace file of a CUDA trainer per traced step: the spans on
the GPU's compute stream (kernels with their grid and block, copies) and
on its communication stream (NCCL collectives with bytes and mesh axes),
and whether each lies inside its step's host span (the GPU's event times
put on the host's clock; 5 microseconds of slack for the reference's
wake-up)."""
import json
import sys

path, first, last = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
events = json.load(open(path))["traceEvents"]
tracks = {e["tid"]: e["args"]["name"] for e in events
          if e["ph"] == "M" and e["name"] == "thread_name"}
print("tracks:", ", ".join(tracks[t] for t in sorted(tracks)))
gpu = {t for t, name in tracks.items() if name.startswith("GPU")}
steps = sorted((e for e in events if e["ph"] == "X" and e["name"].startswith("step ")),
               key=lambda e: e["ts"])
print("traced steps:", " ".join(e["name"][5:] for e in steps))
slack = 5.0
outside = 0
placed = set()
for s in steps:
    lo, hi = s["ts"] - slack, s["ts"] + s["dur"] + slack
    inside = [e for e in events if e["ph"] == "X" and e.get("tid") in gpu
              and lo <= e["ts"] and e["ts"] + e["dur"] <= hi]
    placed.update(id(e) for e in inside)
    kernels = [e for e in inside if tracks[e["tid"]] == "GPU compute stream"
               and not e["name"].startswith("copy ") and e["name"] != "gemm"]
    copies = [e for e in inside if e["name"].startswith("copy ")]
    comms = [e for e in inside if tracks[e["tid"]] == "GPU communication stream"]
    print("%s: kernels %s; copies %d (%d bytes); collectives %s" % (
        s["name"],
        ", ".join("%s grid %d block %d" % (k["name"], k["args"]["grid"], k["args"]["block"])
                  for k in kernels) or "none",
        len(copies), sum(c["args"]["bytes"] for c in copies),
        ", ".join("%s (%d bytes, axes %s)" % (c["name"], c["args"]["bytes"], c["args"]["mesh_axes"])
                  for c in comms) or "none"))
for e in events:
    if e["ph"] == "X" and e.get("tid") in gpu and id(e) not in placed:
        outside += 1
print("GPU spans outside the traced steps: %d" % outside)
