"""Writes ONNX Einsum cases in the node tests' layout (model.onnx and
test_data_set_0/input_N.pb, output_N.pb), each output computed by
numpy.einsum, the ONNX reference's own implementation.

usage: make_einsum_cases.py OUTDIR

The forms beyond the five ONNX node tests: implicit outputs (letters used
once, upper case first), a diagonal, a trace, batch labels over three
operands, four operands, ellipses of different widths broadcasting against
each other and against size-1 dimensions, scalars, spaces in the equation,
float64, and integers (the input is cast from float so that it is computed
at run time, not bound at import).
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(0)

CASES = [
    # name, equation, operand shapes
    ("matmul_implicit", "ij,jk", [(3, 4), (4, 5)]),
    ("upper_before_lower", "Ab,bC", [(2, 3), (3, 4)]),
    ("diagonal", "ii->i", [(4, 4)]),
    ("trace_implicit", "ii", [(5, 5)]),
    ("batch_trace", "bii->b", [(3, 4, 4)]),
    ("diagonal_kept_order", "iji->ji", [(3, 2, 3)]),
    ("outer", "i,j->ij", [(3,), (4,)]),
    ("sum_all", "ij->", [(3, 4)]),
    ("scalar_times", ",ij->ij", [(), (2, 3)]),
    ("attention_scores", "bhqd,bhkd->bhqk", [(2, 3, 5, 4), (2, 3, 6, 4)]),
    ("attention_values", "bhqk,bhkd->bqhd", [(2, 3, 5, 6), (2, 3, 6, 4)]),
    ("bilinear_three", "bi,oij,bj->bo", [(4, 3), (2, 3, 5), (4, 5)]),
    ("batch_in_three", "bij,bjk,bkl->bil", [(2, 3, 4), (2, 4, 5), (2, 5, 3)]),
    ("four_operands", "ab,bc,cd,de->ae", [(2, 3), (3, 4), (4, 2), (2, 5)]),
    ("ellipsis_linear", "...d,de->...e", [(2, 3, 4), (4, 6)]),
    ("ellipsis_broadcast", "...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("ellipsis_implicit", "...ij,...jk", [(3, 2, 4), (1, 4, 5)]),
    ("ellipsis_middle", "a...c,c->a...", [(2, 3, 4, 5), (5,)]),
    ("size_one_label", "ij,jk->ik", [(3, 1), (4, 5)]),
    ("summed_alone", "ijk,kl->il", [(2, 3, 4), (4, 5)]),
    ("transpose_3d", "abc->cab", [(2, 3, 4)]),
    ("spaces", " ij , jk -> ki ", [(3, 4), (4, 2)]),
    # The output lacks the ellipsis: its dimensions are summed, as PyTorch
    # does (numpy refuses; the reference sums numpy's explicit form).
    ("ellipsis_summed", "...ij,jk->ik", [(5, 2, 3), (3, 4)]),
]
SUMMED = {"...ij,jk->ik": lambda a, b: np.einsum("...ij,jk->...ik", a, b).sum(0)}


def vi(name, shape, elem):
    return helper.make_tensor_value_info(name, elem, shape)


def write(name, nodes, inputs, outputs, feeds, results, opset=12):
    folder = os.path.join(out, "test_einsum_" + name)
    data = os.path.join(folder, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    graph = helper.make_graph(nodes, name, inputs, outputs)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", opset)])
    with open(os.path.join(folder, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    for kind, arrays in (("input", feeds), ("output", results)):
        for i, a in enumerate(arrays):
            with open(os.path.join(data, "%s_%d.pb" % (kind, i)), "wb") as f:
                f.write(numpy_helper.from_array(a).SerializeToString())


for dtype, elem, suffix in ((np.float32, TensorProto.FLOAT, ""),
                            (np.float64, TensorProto.DOUBLE, "_f64")):
    for name, equation, shapes in CASES:
        feeds = [rng.standard_normal(s).astype(dtype) for s in shapes]
        names = ["x%d" % i for i in range(len(shapes))]
        reference = SUMMED.get(equation, lambda *x: np.einsum(equation, *x))
        result = np.asarray(reference(*feeds)).astype(dtype)
        write(name + suffix,
              [helper.make_node("Einsum", names, ["y"], equation=equation)],
              [vi(n, list(s), elem) for n, s in zip(names, shapes)],
              [vi("y", list(result.shape), elem)], feeds, [result])

# Integers: operands cast from float inputs holding whole numbers.
for name, equation, shapes in (("int_matmul", "bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
                               ("int_diagonal_outer", "ii,j->ij", [(3, 3), (4,)]),
                               ("int_implicit", "ij,kj", [(3, 4), (2, 4)])):
    feeds = [rng.integers(-9, 10, s).astype(np.float32) for s in shapes]
    names = ["x%d" % i for i in range(len(shapes))]
    nodes = [helper.make_node("Cast", [n], [n + "i"], to=TensorProto.INT64)
             for n in names]
    nodes.append(helper.make_node("Einsum", [n + "i" for n in names], ["y"],
                                  equation=equation))
    result = np.einsum(equation, *[f.astype(np.int64) for f in feeds])
    write(name, nodes,
          [vi(n, list(s), TensorProto.FLOAT) for n, s in zip(names, shapes)],
          [vi("y", list(result.shape), TensorProto.INT64)], feeds, [result])
