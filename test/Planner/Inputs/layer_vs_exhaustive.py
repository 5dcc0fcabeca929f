"""Checks the layer search against exhaustive enumeration: the plan the
layer search chose (its --plan-only output, first argument), predicted by
the exhaustive search (the other arguments: MESH=FILE, each the --plan-only
output of --plan-search=exhaustive on that mesh), is within 2% of the best
plan the exhaustive searches found. Prints both and the gap."""
import re
import sys

LINE = re.compile(r"^\s+\d+\.\s+(.*?)\s+([0-9.e+]+) ms \(compute")


def plans(path):
    for line in open(path):
        m = LINE.match(line)
        if m:
            yield " ".join(m.group(1).split()), float(m.group(2))


layered = list(plans(sys.argv[1]))
if not layered:
    sys.exit("no plan in " + sys.argv[1])
chosen, predicted = layered[0]
mesh, plan = chosen.split(" ", 1)
exhaustive = {}
for arg in sys.argv[2:]:
    shape, path = arg.split("=", 1)
    for name, ms in plans(path):
        exhaustive[(shape, name)] = ms
if (mesh, plan) not in exhaustive:
    sys.exit("the exhaustive searches did not predict %s on mesh %s" % (plan, mesh))
best = min(exhaustive.items(), key=lambda kv: kv[1])
gap = exhaustive[(mesh, plan)] / best[1] - 1
print("layer search chose %s on %s: %.4g ms by the layer summary, %.4g ms built;"
      " exhaustive best %s on %s: %.4g ms; gap %.2f%%"
      % (plan, mesh, predicted, exhaustive[(mesh, plan)], best[0][1], best[0][0],
         best[1], 100 * gap))
if gap > 0.02:
    sys.exit("FAIL: more than 2% slower than the exhaustive search's best")
print("ok")
