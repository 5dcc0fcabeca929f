"""Writes models whose shapes and indices are computed in floating point
from constants and input shapes, as Funnel Transformer's export does, in
the ONNX node tests' layout (model.onnx, test_data_set_0/input_0.pb,
output_0.pb). Each expected output is numpy's, computed here from the same
input by the ONNX definitions of the ops. The importer must evaluate the
float ops at import time, or the Range, Reshape and Gather they feed have no
static shape.

  funnel_positions     Funnel's pattern: a float Slice (step 2), Concat,
                       Gather, Sub and Add, a Cast to int64 bounding a Range
                       whose values index the input
  cast_truncates       Cast float -> int64 truncates toward zero (-2.7 -> -2,
                       3.9 -> 3); the Range's negative indices wrap
  size_ceil            Shape -> Cast float -> Div -> Ceil -> Cast int64:
                       the rows of a Reshape
  transpose_split      a float Transpose, Split, Sub, Mul and Cast: a
                       Reshape's shape
  expand_sqrt_floor    a float Expand, Sqrt, Floor, Add and Cast: a
                       Reshape's shape

Also writes DIR/nan-range.onnx, whose Range bound is the Cast of a NaN
(undefined in ONNX): it is not evaluated, and the Range is refused.

usage: make_float_shape_cases.py DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(0)


def const(name, values, dtype=np.float32):
    return h.make_node("Constant", [], [name],
                       value=numpy_helper.from_array(np.array(values, dtype=dtype), name))


def save(path, nodes, x, y, opset=14):
    graph = h.make_graph(nodes, os.path.basename(path),
                         [h.make_tensor_value_info("x", T.FLOAT, list(x.shape))],
                         [h.make_tensor_value_info("y", T.FLOAT, list(y.shape))])
    m = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)])
    onnx.checker.check_model(m, full_check=True)
    return m


def case(name, nodes, x, y):
    folder = os.path.join(out, "test_float_shape_" + name)
    data = os.path.join(folder, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    onnx.save(save(name, nodes, x, y), os.path.join(folder, "model.onnx"))
    with open(os.path.join(data, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "x").SerializeToString())
    with open(os.path.join(data, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(y, "y").SerializeToString())


# Funnel: positions 1..14 (float), every second one, -1 in front, the first
# of them (-1) minus 0 plus 16: a start of 15, a Range 15..19 of columns.
x = rng.standard_normal((2, 20)).astype(np.float32)
positions = np.arange(1, 15, dtype=np.float32)[0::2]
start = int(np.concatenate([[-1.0], positions]).astype(np.float32)[0] - 0.0 + 16.0)
case("funnel_positions", [
    const("pos", np.arange(1, 15)),
    const("zero_i", [0], np.int64), const("big", [2**63 - 1], np.int64),
    const("axes", [0], np.int64), const("two", [2], np.int64),
    h.make_node("Slice", ["pos", "zero_i", "big", "axes", "two"], ["every2"]),
    const("minus1", [-1.0]),
    h.make_node("Concat", ["minus1", "every2"], ["joined"], axis=0),
    const("first", 0, np.int64),
    h.make_node("Gather", ["joined", "first"], ["picked"], axis=0),
    const("zero_f", 0.0), const("sixteen", 16.0),
    h.make_node("Sub", ["picked", "zero_f"], ["shifted"]),
    h.make_node("Add", ["shifted", "sixteen"], ["start_f"]),
    h.make_node("Cast", ["start_f"], ["start"], to=T.INT64),
    const("limit", 20, np.int64), const("one", 1, np.int64),
    h.make_node("Range", ["start", "limit", "one"], ["idx"]),
    h.make_node("Gather", ["x", "idx"], ["y"], axis=1),
], x, x[:, start:20])

# Cast truncates toward zero: Range(-2, 3) = [-2, -1, 0, 1, 2].
x = rng.standard_normal((3, 7)).astype(np.float32)
case("cast_truncates", [
    const("bounds", [-2.7, 3.9]),
    h.make_node("Cast", ["bounds"], ["ints"], to=T.INT64),
    h.make_node("Split", ["ints"], ["lo", "hi"], axis=0),
    const("scalar", [], np.int64),
    h.make_node("Reshape", ["lo", "scalar"], ["lo0"]),
    h.make_node("Reshape", ["hi", "scalar"], ["hi0"]),
    const("one", 1, np.int64),
    h.make_node("Range", ["lo0", "hi0", "one"], ["idx"]),
    h.make_node("Gather", ["x", "idx"], ["y"], axis=1),
], x, x[:, np.array([-2, -1, 0, 1, 2])])

# ceil(10 / 4) = 3 rows: a (2, 3, 10) input as (3, -1).
x = rng.standard_normal((2, 3, 10)).astype(np.float32)
case("size_ceil", [
    h.make_node("Shape", ["x"], ["shape"]),
    const("i2", [2], np.int64),
    h.make_node("Gather", ["shape", "i2"], ["last"], axis=0),
    h.make_node("Cast", ["last"], ["last_f"], to=T.FLOAT),
    const("four", [4.0]),
    h.make_node("Div", ["last_f", "four"], ["quarter"]),
    h.make_node("Ceil", ["quarter"], ["rows_f"]),
    h.make_node("Cast", ["rows_f"], ["rows"], to=T.INT64),
    const("rest", [-1], np.int64),
    h.make_node("Concat", ["rows", "rest"], ["new_shape"], axis=0),
    h.make_node("Reshape", ["x", "new_shape"], ["y"]),
], x, x.reshape(3, -1))

# [[2, 3], [4, 6]] transposed: [2, 4] and [3, 6]; ([3, 6] - [2, 4]) * [4, 3]
# = [4, 6]: a 24-element input as (4, 6).
x = rng.standard_normal((2, 12)).astype(np.float32)
case("transpose_split", [
    const("m", [[2.0, 3.0], [4.0, 6.0]]),
    h.make_node("Transpose", ["m"], ["mt"], perm=[1, 0]),
    h.make_node("Split", ["mt"], ["a", "b"], axis=0),
    h.make_node("Sub", ["b", "a"], ["d"]),
    const("scale", [[4.0, 3.0]]),
    h.make_node("Mul", ["d", "scale"], ["s"]),
    const("flat", [-1], np.int64),
    h.make_node("Reshape", ["s", "flat"], ["s1"]),
    h.make_node("Cast", ["s1"], ["new_shape"], to=T.INT64),
    h.make_node("Reshape", ["x", "new_shape"], ["y"]),
], x, x.reshape(4, 6))

# floor(sqrt(2.25)) = 1, expanded to [1, 1], plus [2, 3]: (3, 4).
x = rng.standard_normal((12,)).astype(np.float32)
case("expand_sqrt_floor", [
    const("v", [2.25]),
    const("two", [2], np.int64),
    h.make_node("Expand", ["v", "two"], ["vv"]),
    h.make_node("Sqrt", ["vv"], ["r"]),
    h.make_node("Floor", ["r"], ["f"]),
    const("add", [2.0, 3.0]),
    h.make_node("Add", ["f", "add"], ["s"]),
    h.make_node("Cast", ["s"], ["new_shape"], to=T.INT64),
    h.make_node("Reshape", ["x", "new_shape"], ["y"]),
], x, x.reshape(3, 4))

# A Range bounded by the Cast of 0 / 0.
x = rng.standard_normal((2, 5)).astype(np.float32)
nodes = [
    const("zero", 0.0),
    h.make_node("Div", ["zero", "zero"], ["nan"]),
    h.make_node("Cast", ["nan"], ["end"], to=T.INT64),
    const("start", 0, np.int64), const("one", 1, np.int64),
    h.make_node("Range", ["start", "end", "one"], ["idx"], name="nan_range"),
    h.make_node("Gather", ["x", "idx"], ["y"], axis=1),
]
graph = h.make_graph(nodes, "nan-range", [h.make_tensor_value_info("x", T.FLOAT, [2, 5])],
                     [h.make_tensor_value_info("y", T.FLOAT, None)])
onnx.save(h.make_model(graph, opset_imports=[h.make_opsetid("", 14)]),
          os.path.join(out, "nan-range.onnx"))
