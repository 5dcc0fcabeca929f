"""Checks dist-compile --remat=auto's choices over a sweep of budgets: the
activations it keeps for the backward fit each budget, the FLOPs it
recomputes never grow as the budget grows, a budget that holds every
activation recomputes nothing, and one below what full keeps acts as full.

usage: remat_budget_check.py FULL_EXPLAIN BUDGET=EXPLAIN...
(each EXPLAIN is the output of dist-compile --train --remat=auto
--memory-budget=BUDGET --explain; FULL_EXPLAIN of --remat=full --explain).
"""
import re
import sys

SUMMARY = re.compile(r"remat \w+ on @\S+: the backward reads (\d+) forward activations "
                     r"\(([0-9.]+) MiB\); kept (\d+) \(([0-9.]+) MiB\)")
AUTO = re.compile(r"remat auto on @\S+ \(budget ([0-9.]+) MiB\): keeps (\d+) of (\d+) stages "
                  r"whole, recomputes the rest: ([0-9.]+) GFLOP recomputed per step "
                  r"\(full: ([0-9.]+)\)")

full = SUMMARY.search(open(sys.argv[1]).read())
full_kept = float(full.group(4))
ok, last_flops = True, None
for arg in sys.argv[2:]:
    budget, path = arg.split("=", 1)
    budget = float(budget)
    text = open(path).read()
    s, a = SUMMARY.search(text), AUTO.search(text)
    saved, kept = float(s.group(2)), float(s.group(4))
    flops, full_flops = float(a.group(4)), float(a.group(5))
    fits = kept <= budget + 0.005 or (budget < full_kept and kept == full_kept)
    grows = last_flops is None or flops <= last_flops
    # (--explain prints MiB to 0.01: a budget within that of the total may
    # be just below it.)
    if budget >= saved + 0.005:
        extreme = flops == 0 and kept == saved
    elif budget < full_kept:
        extreme = flops == full_flops and kept == full_kept
    else:
        extreme = 0 <= flops <= full_flops
    print("budget %.2f MiB: keeps %.2f of %.2f MiB (full keeps %.2f), recomputes %.3f of "
          "%.3f GFLOP: %s" % (budget, kept, saved, full_kept, flops, full_flops,
                              "ok" if fits and grows and extreme else "FAILED"))
    ok = ok and fits and grows and extreme
    last_flops = flops
print("ok" if ok else "FAILED")
sys.exit(0 if ok else 1)
