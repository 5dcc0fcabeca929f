#!/usr/bin/python3
"""Copies a seed corpus for the ONNX importer fuzzer into OUTDIR: small node
test models of libonnx-testdata that cover the converter families (shape
folding, elementwise, contraction, reduction, losses, convolution, indexing).

usage: make_seed_corpus.py OUTDIR [DATA_DIR]
"""
import os
import shutil
import sys

SEEDS = [
    "test_add", "test_gemm_default_no_bias", "test_reshape_extended_dims",
    "test_slice", "test_softmax_example", "test_sce_mean_weight",
    "test_nllloss_NCd1d2_with_weight_reduction_mean_expanded",
    "test_layer_normalization_4d_axis1", "test_conv_with_strides_padding",
    "test_batchnorm_example", "test_gather_0", "test_gather_elements_0",
    "test_split_equal_parts_1d", "test_where_example", "test_tril",
    "test_constantofshape_int_zeros", "test_cast_FLOAT_to_DOUBLE",
    "test_argmax_default_axis_example", "test_cumsum_1d", "test_onehot_with_axis",
    "test_depthtospace_example", "test_tile", "test_reduce_log_sum_exp_default_axes_keepdims_example",
]

out = sys.argv[1]
data = sys.argv[2] if len(sys.argv) > 2 else "/usr/share/libonnx-testdata/data/node"
os.makedirs(out, exist_ok=True)
for name in SEEDS:
    shutil.copy(os.path.join(data, name, "model.onnx"),
                os.path.join(out, name + ".onnx"))
