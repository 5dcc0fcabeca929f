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

import torch

__all__ = ["export_for_training", "trainable_names", "padding_indices"]


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


def export_for_training(module, args, path, opset_version=14, **kwargs):
    """torch.onnx.export in training mode without constant folding, plus the
    ``dist.trainable`` metadata (and ``dist.padding_idx``, the
    embeddings' padding rows). Extra keyword arguments (input_names,
    output_names, dynamic_axes, ...) go to torch.onnx.export. The file is
    written to a temporary name and renamed, so no half-written model is
    left behind."""
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
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
        module.train(was_training)
