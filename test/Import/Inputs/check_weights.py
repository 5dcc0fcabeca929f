"""Checks that an imported module holds every weight of an ONNX model, bit for bit.

usage: check_weights.py MODEL.onnx MODULE.mlir
The reference is the ONNX Python library's reading of the initializers.
Prints one line: "N weights match" or the first mismatches; exit 1 on any.
"""
import re
import sys

import onnx
from onnx import numpy_helper

model = onnx.load(sys.argv[1])
text = open(sys.argv[2]).read()
blobs = dict(re.findall(r'^\s+"?([^":\s]+)"?: "0x([0-9A-F]*)"', text, re.M))
params = set(re.findall(r'dist\.parameter (?:frozen )?@"?([^"\s]+)"? :', text))
errors, checked = [], 0
for init in model.graph.initializer:
    array = numpy_helper.to_array(init)
    if array.dtype.kind != "f":
        continue
    checked += 1
    if init.name not in params:
        errors.append("no dist.parameter for " + init.name)
    elif init.name not in blobs:
        errors.append("no resource blob for " + init.name)
    # The blob starts with its 4-byte alignment, then the little-endian data.
    elif bytes.fromhex(blobs[init.name])[4:] != array.astype(array.dtype.newbyteorder("<")).tobytes():
        errors.append("data of %s differs" % init.name)
for e in errors[:10]:
    print(e)
print("%d weights match" % (checked - len(errors)) if not errors else "%d mismatches" % len(errors))
sys.exit(1 if errors or checked == 0 else 0)
