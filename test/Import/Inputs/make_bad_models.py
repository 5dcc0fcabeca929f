"""Writes small broken ONNX models, one per way a model can be wrong.

usage: make_bad_models.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(os.path.join(out, "sub"), exist_ok=True)


def vi(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def save(name, nodes, inputs, outputs, inits=(), opset=14):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    with open(os.path.join(out, name), "wb") as f:
        f.write(model.SerializeToString())


relu = [helper.make_node("Relu", ["x"], ["y"], name="relu0")]
save("ok.onnx", relu, [vi("x", [2, 3])], [vi("y", [2, 3])])
ok = open(os.path.join(out, "ok.onnx"), "rb").read()
open(os.path.join(out, "truncated.onnx"), "wb").write(ok[: len(ok) // 2])
open(os.path.join(out, "not-onnx.onnx"), "w").write("this is not a model\n")
save("empty-graph.onnx", [], [vi("x", [2])], [])
save("unsupported-op.onnx",
     [helper.make_node("Det", ["x"], ["y"], name="my_det")],
     [vi("x", [3, 3])], [vi("y", [])])
save("unsupported-opset.onnx", relu, [vi("x", [2, 3])], [vi("y", [2, 3])], opset=18)
save("opset6-relu.onnx", relu, [vi("x", [2, 3])], [vi("y", [2, 3])], opset=6)
save("opset6-add.onnx",
     [helper.make_node("Add", ["x", "x"], ["y"], name="old_add", broadcast=1)],
     [vi("x", [2, 3])], [vi("y", [2, 3])], opset=6)
graph = helper.make_graph(relu, "g", [vi("x", [2, 3])], [vi("y", [2, 3])])
other = helper.make_model(graph, opset_imports=[helper.make_opsetid("com.example", 1)])
open(os.path.join(out, "other-domain.onnx"), "wb").write(other.SerializeToString())
save("dynamic.onnx", relu, [vi("x", ["batch", 3])], [vi("y", ["batch", 3])])
save("wrong-output-shape.onnx", relu, [vi("x", [2, 3])], [vi("y", [3, 2])])
save("cycle.onnx",
     [helper.make_node("Relu", ["b"], ["a"], name="first"),
      helper.make_node("Relu", ["a"], ["b"], name="second")],
     [vi("x", [2])], [vi("b", [2])])
save("bad-broadcast.onnx",
     [helper.make_node("Add", ["x", "z"], ["y"], name="bad_add")],
     [vi("x", [2, 3]), vi("z", [4])], [vi("y", [2, 3])])

save("missing-input.onnx",
     [helper.make_node("Shape", [], ["y"], name="no_input")],
     [vi("x", [2])], [vi("y", [1], TensorProto.INT64)])
save("empty-input.onnx",
     [helper.make_node("Concat", ["x", "", "x"], ["y"], name="holey_concat", axis=0)],
     [vi("x", [2])], [vi("y", [4])])

negative = numpy_helper.from_array(np.array([2, -3], np.int64), "s")
save("negative-shape.onnx",
     [helper.make_node("ConstantOfShape", ["s"], ["y"], name="fill")],
     [], [vi("y", [2, 3])], [negative])
save("negative-expand.onnx",
     [helper.make_node("Expand", ["x", "s"], ["y"], name="grow")],
     [vi("x", [1, 1])], [vi("y", [2, 3])], [negative])
# A dynamic batch next to a constant traced at batch 2 (CLIP's labels):
# --input-shape x=4x3 makes the Add fail, with a hint about traced sizes.
traced = numpy_helper.from_array(np.zeros((2, 3), np.float32), "c")
save("traced-batch.onnx",
     [helper.make_node("Add", ["x", "c"], ["y"], name="my_add")],
     [vi("x", ["batch", 3])], [vi("y", ["batch", 3])], [traced])
save("random-bounds.onnx",
     [helper.make_node("RandomUniformLike", ["x"], ["y"], name="my_rand", low=2.0, high=1.0)],
     [vi("x", [2, 3])], [vi("y", [2, 3])])
save("random-huge.onnx",
     [helper.make_node("RandomUniform", [], ["y"], name="my_huge", shape=[1 << 30, 1 << 30])],
     [], [vi("y", [1 << 30, 1 << 30])])
save("random-int.onnx",
     [helper.make_node("RandomNormal", [], ["y"], name="my_randn", shape=[2, 3],
                       dtype=TensorProto.INT64)],
     [], [vi("y", [2, 3], TensorProto.INT64)])
# Valid: ONNX Pow takes an exponent of another type than the base.
save("pow-int-exponent.onnx",
     [helper.make_node("Pow", ["x", "p"], ["y"], name="power")],
     [vi("x", [2, 3])], [vi("y", [2, 3])],
     [numpy_helper.from_array(np.array([2], np.int64), "p")])

# A shape passed as an input: --bind-input fixes it from a TensorProto file.
save("shape-input.onnx",
     [helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")],
     [vi("x", [2, 3]), vi("shape", [2], TensorProto.INT64)], [vi("y", [3, 2])])
for name, value in [("shape", np.array([3, 2], np.int64)),
                    ("shape-float", np.array([3, 2], np.float32)),
                    ("shape-rank2", np.array([[3, 2]], np.int64))]:
    with open(os.path.join(out, name + ".pb"), "wb") as f:
        f.write(numpy_helper.from_array(value, "shape").SerializeToString())
open(os.path.join(out, "garbage.pb"), "wb").write(b"\xff\xff\xff\xff")

# Weights whose data disagrees with their shape.
w = numpy_helper.from_array(np.ones((2, 3), np.float32), "w")
w.raw_data = w.raw_data[:-4]
save("size-mismatch.onnx",
     [helper.make_node("Add", ["x", "w"], ["y"], name="add_w")],
     [vi("x", [2, 3])], [vi("y", [2, 3])], [w])


def pad(name, mode, pads):
    """Pad of a 1x5 input with constant pads."""
    c = helper.make_node("Constant", [], ["pads"], value=helper.make_tensor(
        "pads", TensorProto.INT64, [len(pads)], pads))
    save(name, [c, helper.make_node("Pad", ["x", "pads"], ["y"], name="my_pad",
                                    mode=mode)],
         [vi("x", [1, 5])], [vi("y", None)])


# Reflect reads the axis left after a crop: 5 - 2 leaves 3, too few for 4.
pad("pad-reflect-after-crop.onnx", "reflect", [0, -2, 0, 4])
pad("pad-crop-too-much.onnx", "constant", [0, -3, 0, -3])
pad("pad-wrap.onnx", "wrap", [0, 1, 0, 1])
# Shape arithmetic on the extreme values folds without a trap.
mod = helper.make_node("Constant", [], ["a"], value=helper.make_tensor(
    "a", TensorProto.INT64, [1], [-2**63]))
minus1 = helper.make_node("Constant", [], ["b"], value=helper.make_tensor(
    "b", TensorProto.INT64, [1], [-1]))
save("mod-int64-min.onnx",
     [mod, minus1, helper.make_node("Mod", ["a", "b"], ["r"], name="my_mod"),
      helper.make_node("Reshape", ["x", "r"], ["y"], name="reshape_all")],
     [vi("x", [2, 3])], [vi("y", None)])


# Resize: scales must be known at import time; antialias is refused.
def resize(name, scales_as_input=False, **attrs):
    nodes = []
    inputs = [vi("x", [1, 2, 4, 4])]
    if scales_as_input:
        inputs.append(vi("scales", [4]))
    else:
        nodes.append(helper.make_node("Constant", [], ["scales"], value=helper.make_tensor(
            "scales", TensorProto.FLOAT, [4], [1, 1, 2, 2])))
    nodes.append(helper.make_node("Resize", ["x", "", "scales"], ["y"],
                                  name="my_resize", **attrs))
    save(name, nodes, inputs, [vi("y", None)])


resize("resize-runtime-scales.onnx", scales_as_input=True, mode="linear")
resize("resize-antialias.onnx", mode="linear", antialias=1)
resize("resize-bad-mode.onnx", mode="area")
# ConvTranspose whose weight does not take the input's channels.
save("convtranspose-channels.onnx",
     [helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="my_convt")],
     [vi("x", [1, 3, 4, 4])], [vi("y", None)],
     [numpy_helper.from_array(np.ones((2, 4, 3, 3), np.float32), "w")])
# 4-D convolutions are unsupported.
save("conv4d.onnx",
     [helper.make_node("Conv", ["x", "w"], ["y"], name="my_conv4d")],
     [vi("x", [1, 2, 3, 3, 3, 3])], [vi("y", None)],
     [numpy_helper.from_array(np.ones((3, 2, 2, 2, 2, 2), np.float32), "w")])


# Recurrent layers: variable sequence lengths and activations other than
# Sigmoid, Tanh and Relu are refused at the node.
def lstm(name, lengths=None, **attrs):
    w = numpy_helper.from_array(np.ones((1, 8, 3), np.float32), "w")
    r = numpy_helper.from_array(np.ones((1, 8, 2), np.float32), "r")
    inits = [w, r]
    inputs = ["x", "w", "r"]
    if lengths is not None:
        inits.append(numpy_helper.from_array(np.array(lengths, np.int32), "lens"))
        inputs += ["", "lens"]
    save(name, [helper.make_node("LSTM", inputs, ["y"], name="my_lstm",
                                 hidden_size=2, **attrs)],
         [vi("x", [4, 2, 3])], [vi("y", None)], inits)


lstm("lstm-sequence-lens.onnx", lengths=[4, 3])
lstm("lstm-activation.onnx", activations=["HardSigmoid", "Tanh", "Tanh"])


# Einsum: equations that do not fit their inputs, said at the node.
def einsum(name, equation, shapes):
    names = ["x%d" % i for i in range(len(shapes))]
    save(name, [helper.make_node("Einsum", names, ["y"], name="my_einsum",
                                 equation=equation)],
         [vi(n, list(s)) for n, s in zip(names, shapes)], [vi("y", None)],
         opset=12)


einsum("einsum-char.onnx", "ij,j1->i", [(2, 3), (3, 4)])
einsum("einsum-terms.onnx", "ij,jk,k->i", [(2, 3), (3, 4)])
einsum("einsum-rank.onnx", "ijk,kl->il", [(2, 3), (3, 4)])
einsum("einsum-sizes.onnx", "ij,jk->ik", [(2, 3), (4, 5)])
einsum("einsum-output.onnx", "ij,jk->iz", [(2, 3), (3, 4)])
einsum("einsum-ellipses.onnx", "...i...,i->i", [(5, 2, 3), (2,)])


# Scatters: reductions other than none and add, integer data at indices
# computed at run time (dist.scatter_add adds floats), and shapes that do
# not fit.
def scatter(name, op, data_type, shapes, **attrs):
    save(name, [helper.make_node(op, ["data", "indices", "updates"], ["y"],
                                 name="my_scatter", **attrs)],
         [vi("data", shapes[0], data_type),
          vi("indices", shapes[1], TensorProto.INT64),
          vi("updates", shapes[2], data_type)], [vi("y", None, data_type)],
         opset=16)


scatter("scatter-mul.onnx", "ScatterElements", TensorProto.FLOAT,
        [[4, 5], [2, 5], [2, 5]], reduction="mul")
scatter("scatter-int.onnx", "ScatterElements", TensorProto.INT64,
        [[4, 5], [2, 5], [2, 5]])
scatter("scatter-shapes.onnx", "ScatterElements", TensorProto.FLOAT,
        [[4, 5], [2, 5], [2, 4]], axis=0)
scatter("scatternd-updates.onnx", "ScatterND", TensorProto.FLOAT,
        [[4, 5], [3, 1], [3, 4]])
save("gathernd-batch.onnx",
     [helper.make_node("GatherND", ["data", "indices"], ["y"], name="my_gather",
                       batch_dims=1)],
     [vi("data", [3, 4]), vi("indices", [2, 1], TensorProto.INT64)],
     [vi("y", None)], opset=13)


def external(name, location, write_file=True):
    t = numpy_helper.from_array(np.ones((2, 3), np.float32), "w")
    if write_file:
        target = os.path.join(out, location)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(t.raw_data)
    t.ClearField("raw_data")
    t.data_location = TensorProto.EXTERNAL
    entry = t.external_data.add()
    entry.key, entry.value = "location", location
    save(name, [helper.make_node("Add", ["x", "w"], ["y"], name="add_w")],
         [vi("x", [2, 3])], [vi("y", [2, 3])], [t])


external("external-ok.onnx", "weights.bin")
external("missing-external.onnx", "no-such-file.bin", write_file=False)
external("escape-dotdot.onnx", "../outside.bin", write_file=False)
external("escape-absolute.onnx", "/etc/passwd", write_file=False)
secret = os.path.join(os.path.dirname(os.path.abspath(out)), "secret.bin")
open(secret, "wb").write(b"\0" * 24)
link = os.path.join(out, "link.bin")
if os.path.lexists(link):
    os.remove(link)
os.symlink(secret, link)
external("escape-symlink.onnx", "link.bin", write_file=False)
