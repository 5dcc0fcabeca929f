"""Exports a PyTorch module to ONNX the way dist-compile --train needs it.

PyTorch's default export (eval mode, constant folding) is not the model that
PyTorch trains: it merges parameters of equal value, folds batch norm into
convolutions and weights into renamed copies, and drops dropout. This helper
exports in training mode without constant folding and records which
initializers are parameters (``named_parameters()``) in the file's metadata
(``dist.trainable``); the others (buffers: running statistics, masks,
position tables) are frozen when dist-compile trains the model. It also
records each nn.Embedding's padding_idx (``dist.padding_idx``), which ONNX
cannot express: PyTorch gives that row no gradient from its lookups.

    import sys; sys.path.insert(0, "python")
    from dist_export import export_for_training
    export_for_training(model, (idx, targets), "model.onnx",
                        input_names=["idx", "targets"],
                        output_names=["loss", "logits"])

Run with /usr/bin/python3 (Debian's torch 1.13) or the project's .venv.
"""
import json
import os
import random

import torch

__all__ = ["export_for_training", "check_export", "ExportMismatch",
           "trainable_names", "padding_indices"]


def trainable_names(module):
    """Names of the parameters that require gradients, as the exporter names
    their initializers (a parameter registered twice, e.g. a tied embedding
    and head, appears once)."""
    return [name for name, p in module.named_parameters() if p.requires_grad]


def padding_indices(module):
    """{table name: padding_idx} of the module's nn.Embedding layers that
    have one, the table named as its initializer (ONNX's Gather drops
    padding_idx: PyTorch gives that row no gradient from the lookup)."""
    names = {id(p): name for name, p in module.named_parameters()}
    rows = {}
    for layer in module.modules():
        if (isinstance(layer, torch.nn.Embedding) and
                layer.padding_idx is not None and id(layer.weight) in names):
            rows[names[id(layer.weight)]] = int(layer.padding_idx)
    return rows


def _varint(n):
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number, data):
    """A length-delimited protobuf field."""
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def _append_metadata(path, key, value):
    """Appends an entry to ModelProto.metadata_props (field 14) without
    loading the model: repeated fields appended to a serialized message
    extend it, so a 500 MB model costs no more than the entry."""
    entry = _field(1, key.encode()) + _field(2, value.encode())
    with open(path, "ab") as f:
        f.write(_field(14, entry))


class ExportMismatch(RuntimeError):
    """The exported file does not compute what the module computes."""


# Ops whose outputs are random draws: a file with them cannot be compared.
_RANDOM_OPS = {"RandomUniform", "RandomUniformLike", "RandomNormal",
               "RandomNormalLike", "Bernoulli", "Multinomial"}


def _samples_randomly(graph):
    """Whether the graph draws random numbers: a random op, or a Dropout
    in training mode with a non-zero ratio (or one not known here). Only
    the Dropouts' ratio and mode inputs are read, never the weights."""
    from onnx import numpy_helper
    wanted = set()
    for node in graph.node:
        if node.op_type in _RANDOM_OPS:
            return True
        if node.op_type == "Dropout":
            wanted.update(name for name in list(node.input)[1:3] if name)
    known = {}
    for t in graph.initializer:
        if t.name in wanted and not t.external_data:
            known[t.name] = numpy_helper.to_array(t)
    for node in graph.node:
        if (node.op_type == "Constant" and node.output[0] in wanted and node.attribute
                and node.attribute[0].name == "value"):
            known[node.output[0]] = numpy_helper.to_array(node.attribute[0].t)
    for node in graph.node:
        if node.op_type == "Dropout":
            inputs = list(node.input) + ["", ""]
            training = known.get(inputs[2]) if inputs[2] else False
            ratio = known.get(inputs[1]) if inputs[1] else 0.5
            if training is None or ratio is None:
                return True
            if bool(training) and float(ratio) > 0:
                return True
    return False


def _tensors(value):
    """The tensors of a module's output, flattened in the order
    torch.onnx.export gives the file's outputs."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v)]
    return []


def check_export(module, args, path, rtol=1e-4, label=None):
    """Runs the module (in training mode, as exported) and onnxruntime on
    the file with the same inputs and raises ExportMismatch when an output
    differs by more than `rtol` relative to its largest value. PyTorch's
    exporter can write a file that computes something else without a word
    (PyTorch 1.13 drops `fill_diagonal_` on a slice, as in Hugging Face's
    ProphetNet), and dist trains the file, so that mismatch would be a
    silent one. The module's buffers (batch norm's running statistics) are
    restored after its run. Returns the largest relative difference, or
    None when the check cannot run: onnxruntime missing, a file that
    samples randomly (dropout, torch.rand), or outputs that do not line up.
    """
    try:
        import numpy as np
        import onnx
        import onnxruntime
    except ImportError:
        return None
    args = args if isinstance(args, tuple) else (args,)
    # A trailing dict is keyword arguments to torch.onnx.export; the file's
    # inputs are then not simply the positional tensors.
    if args and isinstance(args[-1], dict):
        return None
    label = label or path
    model = onnx.load(path, load_external_data=False)
    if _samples_randomly(model.graph):
        return None
    try:
        session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    except Exception:  # an op onnxruntime lacks: nothing to compare with
        return None
    flat = [a for a in args if isinstance(a, torch.Tensor)]
    feeds = session.get_inputs()
    if len(feeds) != len(flat):
        return None
    # Copies, taken before the module runs: a forward may change its inputs.
    feed = {f.name: a.detach().cpu().numpy().copy() for f, a in zip(feeds, flat)}
    saved = {name: b.detach().clone() for name, b in module.named_buffers()}
    python_rng = random.getstate()
    was_training = module.training
    module.train()
    try:
        # The module's own draws (LayerDrop's torch.rand in a Python `if`)
        # must not move the caller's generators.
        with torch.no_grad(), torch.random.fork_rng():
            expected = _tensors(module(*args))
    finally:
        random.setstate(python_rng)
        module.train(was_training)
        with torch.no_grad():
            for name, b in module.named_buffers():
                b.copy_(saved[name])
    try:
        got = session.run(None, feed)
    except Exception:
        return None
    if len(got) != len(expected):
        return None
    worst = 0.0
    for output, ours, theirs in zip(session.get_outputs(), got, expected):
        theirs = theirs.detach().cpu().numpy()
        if ours.size != theirs.size:
            raise ExportMismatch(
                f"{label}: output '{output.name}' has shape {list(ours.shape)} in the file "
                f"but {list(theirs.shape)} in the module")
        if theirs.dtype.kind != "f":
            continue  # indices and counts can flip on near-ties of floats
        ours = ours.astype(np.float64).reshape(-1)
        theirs = theirs.astype(np.float64).reshape(-1)
        finite = np.isfinite(theirs)
        tolerance = max(rtol, 8 * float(np.finfo(_output_dtype(output)).eps))
        if not np.array_equal(ours[~finite], theirs[~finite], equal_nan=True):
            err = float("inf")
        elif finite.any():
            scale = max(float(np.abs(theirs[finite]).max()), 1e-30)
            err = float(np.abs(ours[finite] - theirs[finite]).max()) / scale
        else:
            err = 0.0
        if not err <= tolerance:  # NaN too
            raise ExportMismatch(
                f"{label}: the exported file does not compute what the module computes: "
                f"output '{output.name}' differs by {err:.2e} relative (onnxruntime on the "
                f"file against the module; tolerance {tolerance:g}). PyTorch's exporter "
                "mis-exported an op, often an in-place op on a slice or view (x[i].fill_(...), "
                "fill_diagonal_, masked_fill_ on an index): rewrite it out of place. dist "
                "would train the file, not the module. (check=False skips this check.)")
        worst = max(worst, err)
    return worst


def _output_dtype(output):
    """The numpy float type of an onnxruntime output ('tensor(float16)')."""
    import numpy as np
    return {"tensor(float16)": np.float16, "tensor(double)": np.float64}.get(
        output.type, np.float32)


def export_for_training(module, args, path, opset_version=14, check=True,
                        **kwargs):
    """torch.onnx.export in training mode without constant folding, plus the
    ``dist.trainable`` metadata (and ``dist.padding_idx``, the
    embeddings' padding rows). Extra keyword arguments (input_names,
    output_names, dynamic_axes, ...) go to torch.onnx.export. The file is
    written to a temporary name and renamed, so no half-written model is
    left behind. With ``check`` (the default), check_export compares the
    file with the module first when onnxruntime is installed and the model
    does not sample randomly, and raises ExportMismatch, leaving no file,
    when they differ."""
    for key in ("training", "do_constant_folding"):
        if key in kwargs:
            raise ValueError(f"export_for_training sets {key} itself")
    was_training = module.training
    module.train()
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        torch.onnx.export(module, args, tmp, opset_version=opset_version,
                          training=torch.onnx.TrainingMode.TRAINING,
                          do_constant_folding=False, **kwargs)
        _append_metadata(tmp, "dist.trainable",
                         json.dumps(trainable_names(module)))
        rows = padding_indices(module)
        if rows:
            _append_metadata(tmp, "dist.padding_idx", json.dumps(rows))
        if check:
            check_export(module, args, tmp, label=path)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
        module.train(was_training)
