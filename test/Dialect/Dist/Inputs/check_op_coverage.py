"""Fails unless every op of the generated dialect reference is checked in a test.

usage: check_op_coverage.py DIALECT_DOC.md TEST.mlir
An op counts as covered when a CHECK line of TEST.mlir names it.
"""
import re
import sys

doc, test = sys.argv[1], sys.argv[2]
ops = sorted(set(re.findall(r"^### `(dist\.[a-z0-9_]+)`", open(doc).read(), re.M)))
checks = "\n".join(l for l in open(test) if "CHECK" in l)
missing = [op for op in ops if not re.search(re.escape(op) + r"\b", checks)]
print("%d ops, %d without a round-trip check" % (len(ops), len(missing)))
for op in missing:
    print("  missing: " + op)
sys.exit(1 if missing or not ops else 0)
