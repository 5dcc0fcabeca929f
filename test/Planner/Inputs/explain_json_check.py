"""Checks --explain=json output (first argument) against the text --explain
of the same compile (second argument): every line is one JSON object; the
search lists the plans fastest first with the chosen one as the text's
first; each plan's arguments carry their split and the reason of each
split; each collective its bytes, axes, source op and predicted seconds,
as the text lines say; the prediction equals the text's predicted step.
Prints 'ok' and a summary, or exits 1 saying what differs."""
import json
import re
import sys

objects = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
text = open(sys.argv[2]).read()
kinds = [o["kind"] for o in objects]
fail = []
if kinds[0] != "search" or kinds[-1] != "prediction" or "plan" not in kinds:
    fail.append("kinds in order search, plan..., prediction: got %s" % kinds)
search = objects[0]
runnable = [p for p in search["plans"] if "ruled_out" not in p]
times = [p["total_seconds"] for p in runnable]
if times != sorted(times):
    fail.append("plans not fastest first")
chosen = re.search(r"^\s+1\.\s+(.*?)\s{2,}", text, re.M).group(1)
if runnable[0]["plan"] != chosen:
    fail.append("chosen %r, text chose %r" % (runnable[0]["plan"], chosen))
plans = [o for o in objects if o["kind"] == "plan"]
split = [a for p in plans for a in p["arguments"] if a["split"]]
if not split or any("reason" not in a for a in split):
    fail.append("split arguments without a reason")
for a in split:
    for s in a["split"]:
        local, whole = a["local_shape"][s["dim"]], a["shape"][s["dim"]]
        if not (local < whole and whole % local == 0):
            fail.append("%s: dim %d split %d -> %d" % (a["name"], s["dim"], whole, local))
text_lines = re.findall(r"^  (\S.*?)\s+([0-9.]+ (?:B|KiB|MiB))\s+ax(?:is|es) ([0-9,]+)\s+<- (.*?)  ~([0-9.e+-]+) us", text, re.M)
json_lines = [c for p in plans for c in p["collectives"] if "bytes" in c and "predicted_seconds" in c]
if len(text_lines) != len(json_lines):
    fail.append("%d priced collectives in the text, %d in JSON" % (len(text_lines), len(json_lines)))
for (what, _, axes, source, us), c in zip(text_lines, json_lines):
    if c["op"] != what.strip() or c["source"] != source or \
            [int(a) for a in axes.split(",")] != c["axes"] or \
            abs(float(us) - 1e6 * c["predicted_seconds"]) > 0.01 * float(us):
        fail.append("collective %r differs: %r" % (what, c))
        break
m = re.search(r"predicted step on \S+ \(.*?\): ([0-9.e+-]+) ms", text)
pred = objects[-1]
if not m or abs(float(m.group(1)) - 1e3 * pred["total_seconds"]) > 1e-3 * float(m.group(1)):
    fail.append("prediction %s vs text %s" % (pred["total_seconds"], m and m.group(1)))
if fail:
    print("FAIL: " + "; ".join(fail))
    sys.exit(1)
print("ok: %d plans searched, %d programs, %d split arguments with reasons, "
      "%d priced collectives" % (len(search["plans"]), len(plans), len(split), len(json_lines)))
