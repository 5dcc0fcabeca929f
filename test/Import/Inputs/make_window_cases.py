"""Writes PyTorch's window ops that dist has no op for, one per case, in
the ONNX node tests' layout (model.onnx and test_data_set_0/input_0.pb,
output_0.pb), each output computed by PyTorch on the same input: 3-D
convolutions and pooling, dilated max pooling. (PyTorch 1.13 exports
nn.LocalResponseNorm as a graph with an If, not as ONNX LRN; the node
tests test_lrn and test_lrn_default cover LRN.)

usage: make_window_cases.py OUTDIR

The attributes the constructions must get right: depth strides,
dilations and padding, groups, ceil mode (a last window that starts in the
padding is dropped), counting the padding in an average or not,
output_padding of a transposed convolution; dilated windows in 1-D and
2-D with padding and ceil mode.
"""
import os
import sys

import torch
import torch.nn as nn
from onnx import numpy_helper

out = sys.argv[1]
torch.manual_seed(0)

CASES = {
    "conv_pad": (nn.Conv3d(3, 4, 3, padding=1), (2, 3, 5, 6, 7)),
    "conv_stride_dilation": (nn.Conv3d(4, 6, (3, 2, 3), stride=(2, 1, 2),
                                       dilation=(2, 1, 1), padding=(2, 1, 0),
                                       groups=2), (1, 4, 9, 5, 6)),
    "conv_kernel_depth_1": (nn.Conv3d(2, 3, (1, 3, 3), padding=(0, 1, 1)), (2, 2, 3, 4, 4)),
    "conv_whole_depth": (nn.Conv3d(2, 2, (4, 2, 2)), (1, 2, 4, 5, 3)),
    "maxpool_ceil": (nn.MaxPool3d(2, ceil_mode=True), (2, 3, 5, 7, 6)),
    "maxpool_pad_stride": (nn.MaxPool3d((3, 2, 3), stride=(2, 2, 1), padding=(1, 0, 1)),
                           (1, 2, 8, 6, 5)),
    "avgpool_count_pad": (nn.AvgPool3d(3, stride=2, padding=1), (1, 2, 7, 6, 5)),
    "avgpool_no_count_pad": (nn.AvgPool3d(3, stride=2, padding=1, count_include_pad=False),
                             (1, 2, 7, 6, 5)),
    # (With padding, PyTorch exports count_include_pad=True as a Pad node
    # before an unpadded AveragePool, whose ceil mode then keeps a window
    # PyTorch drops: onnxruntime gives that model's shape too. So no padding
    # here.)
    "avgpool_ceil_count_pad": (nn.AvgPool3d(2, stride=2, ceil_mode=True), (1, 2, 7, 5, 4)),
    "avgpool_ceil_no_count_pad": (nn.AvgPool3d(3, stride=2, ceil_mode=True,
                                               count_include_pad=False), (1, 2, 8, 6, 5)),
    "convtranspose_stride": (nn.ConvTranspose3d(3, 4, 3, stride=2, padding=1,
                                                output_padding=1), (1, 3, 3, 4, 2)),
    "convtranspose_groups_dilation": (nn.ConvTranspose3d(4, 6, (2, 3, 2), stride=(3, 1, 2),
                                                         dilation=(2, 1, 1), groups=2,
                                                         padding=(1, 1, 0)), (2, 4, 3, 3, 4)),
    "maxpool2d_dilated": (nn.MaxPool2d(3, stride=2, dilation=2, padding=1), (2, 3, 9, 8)),
    "maxpool2d_dilated_ceil": (nn.MaxPool2d((2, 3), stride=(2, 1), dilation=(3, 2),
                                            ceil_mode=True), (1, 2, 10, 7)),
    "maxpool1d_dilated": (nn.MaxPool1d(3, stride=2, dilation=3, padding=1), (2, 4, 13)),
}

for name, (module, shape) in CASES.items():
    folder = os.path.join(out, "test_window_" + name)
    data = os.path.join(folder, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    x = torch.randn(*shape)
    module.eval()
    with torch.no_grad():
        y = module(x)
    torch.onnx.export(module, (x,), os.path.join(folder, "model.onnx"),
                      input_names=["x"], output_names=["y"], opset_version=14)
    with open(os.path.join(data, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x.numpy(), "x").SerializeToString())
    with open(os.path.join(data, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(y.numpy(), "y").SerializeToString())
