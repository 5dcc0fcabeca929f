"""Writes ONNX ScatterElements, ScatterND and GatherND cases in the node
tests' layout (model.onnx and test_data_set_0/input_N.pb, output_N.pb),
each output computed by the loops of the ONNX operator definitions,
written here in numpy.

usage: make_scatter_cases.py OUTDIR

The node-test runner binds integer inputs at import, so each case's
indices come from a float input through a Cast: they are computed at run
time, as a model's are. Cases: every axis of 2-D and 3-D data, negative
indices, index tensors smaller than the data, reduction add with repeated
indices, PyTorch's scatter_add export before opset 16 (a scatter into
zeros read by an Add) with repeated indices, ScatterND over 1, 2 and 3 of 3
dimensions, and GatherND with batch_dims 0, 1 and 2 over float and int64
data.
"""
import itertools
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(0)
ELEM = {np.dtype(np.float32): TensorProto.FLOAT,
        np.dtype(np.float64): TensorProto.DOUBLE,
        np.dtype(np.int64): TensorProto.INT64}


def scatter_elements(data, indices, updates, axis, reduction):
    result = data.copy()
    for pos in itertools.product(*map(range, indices.shape)):
        target = list(pos)
        target[axis] = indices[pos]
        if reduction == "add":
            result[tuple(target)] += updates[pos]
        else:
            result[tuple(target)] = updates[pos]
    return result


def scatter_nd(data, indices, updates, reduction):
    result = data.copy()
    for pos in itertools.product(*map(range, indices.shape[:-1])):
        target = tuple(indices[pos])
        if reduction == "add":
            result[target] += updates[pos]
        else:
            result[target] = updates[pos]
    return result


def gather_nd(data, indices, batch_dims):
    batch = indices.shape[:batch_dims]
    k = indices.shape[-1]
    rest = data.shape[batch_dims + k:]
    result = np.empty(indices.shape[:-1] + rest, data.dtype)
    for pos in itertools.product(*map(range, indices.shape[:-1])):
        where = pos[:batch_dims] + tuple(indices[pos])
        result[pos] = data[where]
    del batch
    return result


def write(name, nodes, feeds, result, opset):
    """feeds: (name, array, is_index); index feeds are float inputs cast to
    int64 in the model."""
    folder = os.path.join(out, "test_" + name)
    data_dir = os.path.join(folder, "test_data_set_0")
    os.makedirs(data_dir, exist_ok=True)
    inputs, arrays, casts = [], [], []
    for feed, array, is_index in feeds:
        if is_index:
            array = array.astype(np.float32)
            casts.append(helper.make_node("Cast", [feed + "_f"], [feed],
                                          to=TensorProto.INT64))
            feed = feed + "_f"
        inputs.append(helper.make_tensor_value_info(
            feed, ELEM[array.dtype], list(array.shape)))
        arrays.append(array)
    graph = helper.make_graph(casts + nodes, name, inputs, [
        helper.make_tensor_value_info("y", ELEM[result.dtype],
                                      list(result.shape))])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", opset)])
    with open(os.path.join(folder, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    for i, a in enumerate(arrays):
        with open(os.path.join(data_dir, "input_%d.pb" % i), "wb") as f:
            f.write(numpy_helper.from_array(a).SerializeToString())
    with open(os.path.join(data_dir, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(result).SerializeToString())


def distinct_along(shape, axis, size):
    """Indices of `shape` into `size`, distinct along `axis` (a replacing
    scatter with repeats is undefined), some negative."""
    indices = np.empty(shape, np.int64)
    moved = np.moveaxis(indices, axis, -1)
    for pos in itertools.product(*map(range, moved.shape[:-1])):
        moved[pos] = rng.permutation(size)[:moved.shape[-1]]
    negative = rng.random(shape) < 0.3
    indices[negative] -= size
    return indices


# ScatterElements: every axis of 2-D and 3-D data, indices smaller than it.
for dshape, ishape in (((4, 5), (3, 2)), ((3, 4, 5), (2, 3, 4))):
    for axis in range(len(dshape)):
        for reduction in ("none", "add"):
            data = rng.standard_normal(dshape).astype(np.float32)
            if reduction == "add":
                indices = rng.integers(-dshape[axis], dshape[axis], ishape)
            else:
                indices = distinct_along(ishape, axis, dshape[axis])
            updates = rng.standard_normal(ishape).astype(np.float32)
            result = scatter_elements(data, np.where(indices < 0, indices + dshape[axis], indices),
                                      updates, axis, reduction)
            write("scatter_elements_%dd_axis%d_%s" % (len(dshape), axis, reduction),
                  [helper.make_node("ScatterElements", ["data", "indices", "updates"],
                                    ["y"], axis=axis, reduction=reduction)],
                  [("data", data, False), ("indices", indices, True),
                   ("updates", updates, False)], result, 16)

# PyTorch's scatter_add before opset 16: data + ScatterElements(zeros, ...)
# with repeated indices, which PyTorch adds up.
data = rng.standard_normal((4, 6)).astype(np.float32)
indices = rng.integers(0, 4, (7, 6))
updates = rng.standard_normal((7, 6)).astype(np.float32)
zeros = numpy_helper.from_array(np.zeros((4, 6), np.float32), "zeros")
write("scatter_add_export",
      [helper.make_node("Constant", [], ["z"], value=zeros),
       helper.make_node("ScatterElements", ["z", "indices", "updates"], ["s"], axis=0),
       helper.make_node("Add", ["data", "s"], ["y"])],
      [("data", data, False), ("indices", indices, True), ("updates", updates, False)],
      scatter_elements(data, indices, updates, 0, "add"), 14)

# ScatterND over 1, 2 and 3 of 3 dimensions, replacing and adding.
for k in (1, 2, 3):
    for reduction in ("none", "add"):
        dshape = (3, 4, 5)
        cells = list(itertools.product(*map(range, dshape[:k])))
        count = 5 if reduction == "add" else min(5, len(cells))
        if reduction == "none":
            chosen = [cells[i] for i in rng.permutation(len(cells))[:count]]
        else:
            chosen = [cells[i] for i in rng.integers(0, len(cells), count)]
        indices = np.array(chosen, np.int64).reshape(count, k)
        signed = indices - np.where(rng.random(indices.shape) < 0.3, np.array(dshape[:k]), 0)
        data = rng.standard_normal(dshape).astype(np.float32)
        updates = rng.standard_normal((count,) + dshape[k:]).astype(np.float32)
        write("scatternd_k%d_%s" % (k, reduction),
              [helper.make_node("ScatterND", ["data", "indices", "updates"], ["y"],
                                reduction=reduction)],
              [("data", data, False), ("indices", signed, True),
               ("updates", updates, False)],
              scatter_nd(data, indices, updates, reduction), 16)

# GatherND: batch_dims 0, 1, 2; float and int64 data; negative indices.
for batch_dims, dshape, ishape in ((0, (4, 5, 3), (2, 3, 2)), (1, (3, 4, 5), (3, 2, 1)),
                                   (2, (2, 3, 4, 5), (2, 3, 2, 2)), (0, (6,), (4, 1))):
    for dtype in (np.float32, np.int64):
        data = (rng.standard_normal(dshape) * 10).astype(dtype)
        k = ishape[-1]
        sizes = np.array(dshape[batch_dims:batch_dims + k])
        indices = rng.integers(0, sizes, ishape)
        signed = indices - np.where(rng.random(ishape) < 0.3, sizes, 0)
        write("gathernd_b%d_%dd_%s" % (batch_dims, len(dshape), np.dtype(dtype).name),
              [helper.make_node("GatherND", ["data", "indices"], ["y"],
                                batch_dims=batch_dims)],
              [("data", data, False), ("indices", signed, True)],
              gather_nd(data, indices, batch_dims), 13)
