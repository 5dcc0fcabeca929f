"""Writes ONNX models whose Expand takes its shape from a Split of
constant integers, as GPT-J's export computes shapes: the importer must
split at import time (before: "Expand: input 'shape' must be known at
import time").

  split-equal.onnx    opset 14, [3, 4] split into two equal parts, joined
                      again: shape [3, 4]
  split-sizes.onnx    opset 14, the sizes an input: [5, 3, 4] split 1 / 2,
                      the second part the shape [3, 4]
  split-columns.onnx  opset 11, the sizes an attribute: [[2, 3], [4, 6]]
                      split along axis 1, the first column reshaped to the
                      shape [2, 4]

usage: make_constant_shapes.py DIR
"""
import os
import sys

import onnx
from onnx import TensorProto as T
from onnx import helper as h

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def const(name, values, dims=None):
    dims = dims if dims is not None else [len(values)]
    return h.make_node("Constant", [], [name],
                       value=h.make_tensor(name, T.INT64, dims, values))


def model(name, nodes, result, opset):
    nodes = nodes + [h.make_node("Expand", ["x", "shape"], ["y"], name="expand")]
    graph = h.make_graph(nodes, name,
                         [h.make_tensor_value_info("x", T.FLOAT, [1, 4])],
                         [h.make_tensor_value_info("y", T.FLOAT, result)])
    m = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)])
    onnx.checker.check_model(m, full_check=True)
    onnx.save(m, os.path.join(out, name + ".onnx"))


model("split-equal",
      [const("v", [3, 4]),
       h.make_node("Split", ["v"], ["a", "b"], axis=0),
       h.make_node("Concat", ["a", "b"], ["shape"], axis=0)], [3, 4], 14)
model("split-sizes",
      [const("v", [5, 3, 4]), const("sizes", [1, 2]),
       h.make_node("Split", ["v", "sizes"], ["a", "shape"], axis=0)],
      [3, 4], 14)
model("split-columns",
      [const("m", [2, 3, 4, 6], [2, 2]),
       h.make_node("Split", ["m"], ["first", "second"], axis=1, split=[1, 1]),
       const("flat", [-1]),
       h.make_node("Reshape", ["first", "flat"], ["shape"])], [2, 4], 11)
