"""A reference of the safetensors format in json + numpy (no safetensors package).

The layout (github.com/huggingface/safetensors): an 8-byte little-endian
header length N, N bytes of JSON {"name": {"dtype", "shape", "data_offsets":
[begin, end]}, ..., "__metadata__": {str: str}} (padded with spaces), then the
data; offsets count from the first byte after the header.
"""
import json
import struct

import numpy as np

# safetensors dtype -> numpy dtype; BF16 has none, it is kept as raw uint16.
NUMPY = {
    "F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2",
    "I64": "<i8", "I32": "<i4", "I16": "<i2", "I8": "|i1",
    "U64": "<u8", "U32": "<u4", "U16": "<u2", "U8": "|u1", "BOOL": "|b1",
}
# numpy dtype name -> safetensors dtype, for arrays (not BF16).
FROM_NUMPY = {np.dtype(v).name: k for k, v in NUMPY.items() if k != "BF16"}
# safetensors dtype -> distrt_dtype_name.
DISTRT_NAME = {k: ("bfloat16" if k == "BF16" else np.dtype(v).name)
               for k, v in NUMPY.items()}


class Tensor:
    """A tensor as the file holds it: dtype name, shape and raw bytes."""

    def __init__(self, dtype, shape, data):
        self.dtype, self.shape, self.data = dtype, tuple(shape), bytes(data)

    @staticmethod
    def of(array):
        array = np.asarray(array).copy(order="C")  # keeps 0-d arrays 0-d
        return Tensor(FROM_NUMPY[array.dtype.name], array.shape, array.tobytes())

    def __eq__(self, other):
        return (self.dtype, self.shape, self.data) == (other.dtype, other.shape, other.data)

    def __repr__(self):
        return "Tensor(%s, %s, %d bytes)" % (self.dtype, self.shape, len(self.data))


def write(path, tensors, metadata=None, ensure_ascii=True, pad=True,
          data_order=None):
    """Writes `tensors` (a list of (name, Tensor), in header order) and
    `metadata`. `data_order` lists the names in the order of their bytes in the
    data area (default: header order)."""
    offsets, at = {}, 0
    for name in data_order or [n for n, _ in tensors]:
        size = len(dict(tensors)[name].data)
        offsets[name] = [at, at + size]
        at += size
    header = {}
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, tensor in tensors:
        header[name] = {"dtype": tensor.dtype, "shape": list(tensor.shape),
                        "data_offsets": offsets[name]}
    text = json.dumps(header, ensure_ascii=ensure_ascii).encode("utf-8")
    if pad:
        text += b" " * (-len(text) % 8)
    data = {name: tensor.data for name, tensor in tensors}
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for name in data_order or [n for n, _ in tensors]:
            f.write(data[name])


def read(path):
    """Reads and checks a file as strictly as the reference implementation:
    returns ([(name, Tensor)] in header order, metadata, header length).
    Raises ValueError on anything out of spec, including holes in the data."""
    blob = open(path, "rb").read()
    (n,) = struct.unpack("<Q", blob[:8])
    if 8 + n > len(blob):
        raise ValueError("header runs past the end")
    text = blob[8:8 + n].decode("utf-8")
    if not text.startswith("{"):
        raise ValueError("header does not start with '{'")

    def no_duplicates(pairs):
        keys = [k for k, _ in pairs]
        if len(set(keys)) != len(keys):
            raise ValueError("duplicate keys %s" % keys)
        return dict(pairs)

    header = json.loads(text, object_pairs_hook=no_duplicates)
    data = blob[8 + n:]
    metadata = header.pop("__metadata__", None)
    if metadata is not None and not all(isinstance(v, str) for v in metadata.values()):
        raise ValueError("metadata values must be strings")
    tensors, spans = [], []
    for name, info in header.items():
        dtype, shape, (begin, end) = info["dtype"], info["shape"], info["data_offsets"]
        size = int(np.prod(shape, dtype=np.int64)) * np.dtype(NUMPY[dtype]).itemsize
        if end - begin != size or not 0 <= begin <= end <= len(data):
            raise ValueError("%s: bad data_offsets %s for %s %s" % (name, [begin, end], dtype, shape))
        spans.append((begin, end))
        tensors.append((name, Tensor(dtype, shape, data[begin:end])))
    at = 0
    for begin, end in sorted(spans):
        if begin != at:
            raise ValueError("data area has a hole or an overlap at byte %d" % at)
        at = end
    if at != len(data):
        raise ValueError("data area has %d bytes no tensor uses" % (len(data) - at))
    return tensors, metadata, n
