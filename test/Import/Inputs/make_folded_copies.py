"""Writes ONNX models with an initializer `onnx::MatMul_1` that is a
transposed copy of a parameter, as PyTorch's constant folding leaves a tied
head: tied.onnx (one parameter matches: tied back), ambiguous.onnx (two
equal parameters match: left alone), symmetric.onnx (the copy is its own
transpose: left alone).

usage: make_folded_copies.py DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(0)


def model(name, params, copy):
    inits = [numpy_helper.from_array(v, k) for k, v in params.items()]
    inits.append(numpy_helper.from_array(copy, "onnx::MatMul_1"))
    first = next(iter(params))
    nodes = [helper.make_node("Gather", [first, "ids"], ["e"], name="lookup"),
             helper.make_node("MatMul", ["e", "onnx::MatMul_1"], ["logits"],
                              name="head")]
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info("ids", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                       [2, copy.shape[1]])],
        inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    onnx.save(m, os.path.join(out, name + ".onnx"))


emb = rng.standard_normal((5, 3)).astype(np.float32)
model("tied", {"emb": emb}, emb.T.copy())
model("ambiguous", {"emb": emb, "other": emb.copy()}, emb.T.copy())
sym = rng.standard_normal((3, 3)).astype(np.float32)
sym = sym + sym.T
model("symmetric", {"emb": np.concatenate([sym, sym[:2]]), "s": sym}, sym.copy())
