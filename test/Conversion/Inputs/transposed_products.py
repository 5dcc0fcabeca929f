"""Products of transposed operands, checked against numpy in float64.

usage: transposed_products.py make DIR | check DIR

`make` writes DIR/model.onnx (MatMul with Transpose on either input, on the
result, batched, a transpose read by a product and by an add) and its
inputs DIR/<name>.npy; `check` compares the executable's outputs in
DIR/out with numpy. dist-fold-transpose-into-matmul turns every Transpose
here into a BLAS transpose flag or an exchange of operands: a wrong leading
dimension or a swapped flag shows as a mismatch on these non-square shapes.
"""
import os
import sys

import numpy as np

RNG = np.random.default_rng(7)
INPUTS = {
    "x": (6, 5), "w": (7, 5), "a": (5, 6), "w2": (5, 7), "w3": (5, 7),
    "b3": (3, 5, 6), "c3": (3, 5, 4), "d3": (3, 6, 5), "x3": (2, 6, 5),
}


def reference(v):
    t = lambda m: np.swapaxes(m, -1, -2)
    return {
        "trans_b": v["x"] @ t(v["w"]),
        "trans_a": t(v["a"]) @ v["w2"],
        "trans_result": t(v["x"] @ v["w3"]),
        "trans_all": t(t(v["a"]) @ t(v["w"])),
        "batch_trans_a": t(v["b3"]) @ v["c3"],
        "batch_trans_result": t(v["d3"] @ v["c3"]),
        "rank3_trans_b": v["x3"] @ t(v["w"]),
        "shared_product": v["x"] @ t(v["w"]),
        "shared_add": t(v["w"]) + 1.0,
    }


def make(out):
    import onnx
    from onnx import TensorProto, helper

    def vi(name, shape):
        return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)

    def tr(src, dst, perm=None):
        attrs = {"perm": perm} if perm else {}
        return helper.make_node("Transpose", [src], [dst], **attrs)

    nodes = [
        tr("w", "wt"), helper.make_node("MatMul", ["x", "wt"], ["trans_b"]),
        tr("a", "at"), helper.make_node("MatMul", ["at", "w2"], ["trans_a"]),
        helper.make_node("MatMul", ["x", "w3"], ["p3"]),
        tr("p3", "trans_result"),
        helper.make_node("MatMul", ["at", "wt"], ["p4"]),
        tr("p4", "trans_all"),
        tr("b3", "b3t", [0, 2, 1]),
        helper.make_node("MatMul", ["b3t", "c3"], ["batch_trans_a"]),
        helper.make_node("MatMul", ["d3", "c3"], ["p6"]),
        tr("p6", "batch_trans_result", [0, 2, 1]),
        helper.make_node("MatMul", ["x3", "wt"], ["rank3_trans_b"]),
        tr("w", "ws"), helper.make_node("MatMul", ["x", "ws"],
                                        ["shared_product"]),
        helper.make_node("Constant", [], ["one"],
                         value=helper.make_tensor("one", TensorProto.FLOAT,
                                                  [], [1.0])),
        helper.make_node("Add", ["ws", "one"], ["shared_add"]),
    ]
    values = {k: RNG.standard_normal(s) for k, s in INPUTS.items()}
    expected = reference(values)
    graph = helper.make_graph(
        nodes, "transposed_products",
        [vi(k, list(s)) for k, s in INPUTS.items()],
        [vi(k, list(v.shape)) for k, v in expected.items()])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 14)])
    onnx.checker.check_model(model)
    os.makedirs(out, exist_ok=True)
    onnx.save(model, os.path.join(out, "model.onnx"))
    for k, v in values.items():
        np.save(os.path.join(out, k + ".npy"), v.astype(np.float32))
    print(" ".join("--input %s=%s" % (k, os.path.join(out, k + ".npy"))
                   for k in INPUTS))


def check(out):
    values = {k: np.load(os.path.join(out, k + ".npy")).astype(np.float64)
              for k in INPUTS}
    bad = 0
    expected = reference(values)
    for name, want in expected.items():
        got = np.load(os.path.join(out, "out", name + ".npy"))
        err = np.max(np.abs(got - want) / (np.abs(want) + 1e-3))
        ok = got.shape == want.shape and err < 1e-5
        bad += not ok
        print("%s %s shape %s max relative error %.1e" %
              ("ok" if ok else "MISMATCH", name, got.shape, err))
    print("%d of %d outputs differ from numpy" % (bad, len(expected)))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    {"make": make, "check": check}[sys.argv[1]](sys.argv[2])
