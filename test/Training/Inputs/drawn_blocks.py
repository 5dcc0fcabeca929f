"""Runs drawn_blocks.mlir's executable at several offsets and checks that
each split draw (dropout, uniform, normal) equals the whole op's block at
those offsets, bit for bit, and differs from the block at other offsets.

usage: drawn_blocks.py EXECUTABLE WORKDIR
"""
import os
import subprocess
import sys

import numpy as np

exe, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
np.save(os.path.join(work, "x.npy"), np.ones((6, 10), np.float32))
failed = False
for row, col in [(0, 0), (3, 6), (1, 3), (2, 0)]:
    out = os.path.join(work, f"out-{row}-{col}")
    np.save(os.path.join(work, "row.npy"), np.array(row, np.int64))
    np.save(os.path.join(work, "col.npy"), np.array(col, np.int64))
    subprocess.run([exe, "--input", "x=" + os.path.join(work, "x.npy"),
                    "--input", "row=" + os.path.join(work, "row.npy"),
                    "--input", "col=" + os.path.join(work, "col.npy"),
                    "--output-dir", out], check=True, stdout=subprocess.DEVNULL)
    for name in ("dropout", "uniform", "normal"):
        whole = np.load(os.path.join(out, name + ".npy"))
        block = np.load(os.path.join(out, name + "_block.npy"))
        expected = whole[row:row + 3, col:col + 4]
        same = np.array_equal(block.view(np.uint32), expected.view(np.uint32))
        # Another block of the whole tensor: a block that ignored its offsets
        # would equal the one at (0, 0).
        other = whole[(row + 3) % 6:(row + 3) % 6 + 3, (col + 1) % 6:(col + 1) % 6 + 4]
        moved = not np.array_equal(block, other)
        print(f"{name} at ({row}, {col}): block {'equals' if same else 'DIFFERS FROM'} the whole op's"
              f"{'' if moved else ', and EQUALS ANOTHER BLOCK'}")
        failed |= not (same and moved)
print("FAIL" if failed else "ok")
sys.exit(1 if failed else 0)
