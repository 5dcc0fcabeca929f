"""Checks every gradient dist-autodiff builds against central finite
differences in float64.

usage: finite_differences.py DIST_COMPILE WORKDIR [CASE ...]

For each case (an op on float64 parameters of random shape and values, seeded
per case), builds `loss = sum(op(params) * R)` with a random constant R, and
compiles it twice: `dist-compile --gradients` (the gradients under test) and
forward only (the loss, for the differences). Every parameter element is
perturbed by +-h (h = 1e-6, scaled) through a weights file; the central
difference (L(p+h) - L(p-h)) / 2h must match the gradient within relative
error 1e-6 of the gradient's norm (float64 differences are accurate to about
1e-9 here). Prints one line per case and exits 1 if any fails.
"""
import json
import os
import subprocess
import sys

import numpy as np

from examples_io import nan_is_worst, write_tensors


def dense(a):
    return "dense<%s>" % json.dumps(np.asarray(a).tolist())


def ttype(shape, et="f64"):
    return "tensor<%s%s>" % ("".join("%dx" % d for d in shape), et)


# name: (params {name: (shape, low, high)}, body, result shape, extra consts)
# The body is MLIR computing %y from %<param> arguments; {T:p} expands to the
# parameter's tensor type.
def cases():
    c = {}
    unary_domains = {
        "neg": (-2, 2), "abs": (0.2, 2), "exp": (-1, 1), "log": (0.5, 2),
        "sqrt": (0.5, 2), "rsqrt": (0.5, 2), "reciprocal": (0.5, 2),
        "tanh": (-2, 2), "erf": (-2, 2), "sigmoid": (-3, 3), "relu": (0.1, 1),
        "sin": (-2, 2), "cos": (-2, 2), "tan": (-1, 1), "asin": (-0.8, 0.8),
        "acos": (-0.8, 0.8), "atan": (-2, 2), "sinh": (-2, 2), "cosh": (-2, 2),
        "asinh": (-2, 2), "acosh": (1.5, 3), "atanh": (-0.8, 0.8)}
    for op, (lo, hi) in unary_domains.items():
        c[op] = ({"x": ([3, 4], lo, hi)},
                 "%y = dist.{op} %x : {T:x}".replace("{op}", op), [3, 4])
    c["gelu"] = ({"x": ([3, 4], -3, 3)}, "%y = dist.gelu %x : {T:x}", [3, 4])
    c["gelu_tanh"] = ({"x": ([3, 4], -3, 3)},
                      "%y = dist.gelu %x {approximate_tanh} : {T:x}", [3, 4])
    for op in ["add", "sub", "mul", "div", "max", "min"]:
        c[op + "_broadcast"] = (
            {"a": ([2, 3, 4], 0.5, 2), "b": ([3, 1], 0.5, 2)},
            "%y = dist.{op} %a, %b : ({T:a}, {T:b}) -> tensor<2x3x4xf64>"
            .replace("{op}", op), [2, 3, 4])
    c["pow"] = ({"a": ([3, 4], 0.5, 2), "b": ([4], 0.5, 2)},
                "%y = dist.pow %a, %b : ({T:a}, {T:b}) -> tensor<3x4xf64>",
                [3, 4])
    c["rem"] = ({"a": ([3, 4], 2.1, 5), "b": ([4], 0.6, 0.9)},
                "%y = dist.rem %a, %b : ({T:a}, {T:b}) -> tensor<3x4xf64>",
                [3, 4])
    c["dropout"] = ({"x": ([4, 5], -1, 1)},
                    "%y, %m = dist.dropout %x {ratio = 0.5 : f64, seed = 7 : i64} : {T:x}",
                    [4, 5])
    c["floor"] = ({"x": ([3, 4], 0.1, 0.9)}, "%y = dist.floor %x : {T:x}",
                  [3, 4])
    c["select"] = ({"a": ([3, 4], -1, 1), "b": ([4], -1, 1)},
                   "%m = dist.compare gt, %a, %b : ({T:a}, {T:b}) -> tensor<3x4xi1>\n"
                   "%y = dist.select %m, %a, %b : (tensor<3x4xi1>, {T:a}, {T:b}) -> tensor<3x4xf64>",
                   [3, 4])
    for op in ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min",
               "reduce_prod"]:
        c[op] = ({"x": ([2, 3, 4], 0.5, 2)},
                 "%y = dist.{op} %x axes = [0, 2] : ({T:x}) -> tensor<3xf64>"
                 .replace("{op}", op), [3])
    c["cumsum"] = ({"x": ([3, 4], -1, 1)},
                   "%y = dist.cumsum %x axis = 1 {exclusive} : {T:x}", [3, 4])
    c["softmax"] = ({"x": ([3, 5], -2, 2)},
                    "%y = dist.softmax %x axis = 1 : {T:x}", [3, 5])
    c["log_softmax"] = ({"x": ([3, 5], -2, 2)},
                        "%y = dist.log_softmax %x axis = 0 : {T:x}", [3, 5])
    c["layer_norm"] = (
        {"x": ([2, 3, 4], -2, 2), "g": ([4], 0.5, 1.5), "b": ([4], -1, 1)},
        "%y = dist.layer_norm %x, %g, %b axis = 2 : ({T:x}, {T:g}, {T:b}) -> tensor<2x3x4xf64>",
        [2, 3, 4])
    c["batch_norm"] = (
        {"x": ([3, 2, 2, 2], -2, 2), "g": ([2], 0.5, 1.5), "b": ([2], -1, 1)},
        "%mv = dist.constant dense<[0.5, 1.5]> : tensor<2xf64>\n"
        "%y = dist.batch_norm %x, %g, %b, %mv, %mv {training} : ({T:x}, {T:g}, {T:b}, tensor<2xf64>, tensor<2xf64>) -> tensor<3x2x2x2xf64>",
        [3, 2, 2, 2])
    c["matmul_batched"] = (
        {"a": ([2, 3, 4], -1, 1), "b": ([4, 5], -1, 1)},
        "%y = dist.matmul %a, %b : ({T:a}, {T:b}) -> tensor<2x3x5xf64>",
        [2, 3, 5])
    c["matmul_transposed"] = (
        {"a": ([4, 3], -1, 1), "b": ([2, 5, 4], -1, 1)},
        "%y = dist.matmul %a, %b {transpose_lhs, transpose_rhs} : ({T:a}, {T:b}) -> tensor<2x3x5xf64>",
        [2, 3, 5])
    c["gemm"] = (
        {"a": ([3, 4], -1, 1), "b": ([5, 4], -1, 1), "c": ([5], -1, 1)},
        "%y = dist.gemm %a, %b, %c {transpose_b, alpha = 0.5 : f64, beta = 2.0 : f64} : ({T:a}, {T:b}, {T:c}) -> tensor<3x5xf64>",
        [3, 5])
    c["transpose_reshape"] = (
        {"x": ([2, 3, 4], -1, 1)},
        "%t = dist.transpose %x permutation = [2, 0, 1] : ({T:x}) -> tensor<4x2x3xf64>\n"
        "%y = dist.reshape %t : (tensor<4x2x3xf64>) -> tensor<8x3xf64>", [8, 3])
    c["broadcast"] = ({"x": ([3, 1], -1, 1)},
                      "%y = dist.broadcast %x : ({T:x}) -> tensor<2x3x4xf64>",
                      [2, 3, 4])
    c["slice_reversed"] = (
        {"x": ([4, 6], -1, 1)},
        "%y = dist.slice %x starts = [3, 1] strides = [-1, 2] : ({T:x}) -> tensor<3x3xf64>",
        [3, 3])
    c["concat_split"] = (
        {"a": ([2, 3], -1, 1), "b": ([2, 2], -1, 1)},
        "%c = dist.concat %a, %b axis = 1 : ({T:a}, {T:b}) -> tensor<2x5xf64>\n"
        "%p, %y = dist.split %c axis = 1 : (tensor<2x5xf64>) -> (tensor<2x1xf64>, tensor<2x4xf64>)",
        [2, 4])
    c["gather"] = (
        {"x": ([5, 3], -1, 1)},
        "%i = dist.constant dense<[[0, 4], [-1, 0]]> : tensor<2x2xi64>\n"
        "%y = dist.gather %x[%i] axis = 0 : ({T:x}, tensor<2x2xi64>) -> tensor<2x2x3xf64>",
        [2, 2, 3])
    c["gather_elements"] = (
        {"x": ([3, 4], -1, 1)},
        "%i = dist.constant dense<[[0, 3], [1, 1]]> : tensor<2x2xi64>\n"
        "%y = dist.gather_elements %x[%i] axis = 1 : ({T:x}, tensor<2x2xi64>) -> tensor<2x2xf64>",
        [2, 2])
    c["trilu"] = ({"x": ([3, 4], -1, 1)},
                  "%y = dist.trilu %x {diagonal = 1 : i64} : {T:x}", [3, 4])
    c["cross_entropy"] = (
        {"x": ([4, 3, 2], -2, 2)},
        "%l = dist.constant dense<[[0, 2], [1, -100], [2, 2], [1, 0]]> : tensor<4x2xi64>\n"
        "%w = dist.constant dense<[0.5, 2.0, 1.25]> : tensor<3xf64>\n"
        "%y0 = dist.cross_entropy mean, %x, %l weight %w {ignore_index = -100 : i64} : ({T:x}, tensor<4x2xi64>, tensor<3xf64>) -> tensor<f64>\n"
        "%y = dist.reshape %y0 : (tensor<f64>) -> tensor<1xf64>", [1])
    c["nll_loss"] = (
        {"x": ([4, 3], -2, 2)},
        "%l = dist.constant dense<[0, 2, 1, 1]> : tensor<4xi64>\n"
        "%y = dist.nll_loss none, %x, %l : ({T:x}, tensor<4xi64>) -> tensor<4xf64>",
        [4])
    c["conv2d_strided"] = (
        {"x": ([2, 2, 5, 5], -1, 1), "w": ([3, 2, 3, 3], -1, 1),
         "b": ([3], -1, 1)},
        "%y = dist.conv2d %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 0, 1, 2>} : ({T:x}, {T:w}, {T:b}) -> tensor<2x3x3x3xf64>",
        [2, 3, 3, 3])
    c["conv2d_grouped_dilated"] = (
        {"x": ([1, 4, 5, 5], -1, 1), "w": ([4, 2, 2, 2], -1, 1)},
        "%y = dist.conv2d %x, %w {groups = 2 : i64, dilations = array<i64: 2, 2>} : ({T:x}, {T:w}) -> tensor<1x4x3x3xf64>",
        [1, 4, 3, 3])
    # Depthwise with a channel multiplier (MobileNet's blocks), strided and
    # padded, over a batch of 2; and 2 groups of 2 -> 3 channels.
    c["conv2d_depthwise_strided"] = (
        {"x": ([2, 3, 5, 5], -1, 1), "w": ([6, 1, 3, 3], -1, 1),
         "b": ([6], -1, 1)},
        "%y = dist.conv2d %x, %w, %b {groups = 3 : i64, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : ({T:x}, {T:w}, {T:b}) -> tensor<2x6x3x3xf64>",
        [2, 6, 3, 3])
    c["conv2d_grouped_strided"] = (
        {"x": ([2, 4, 6, 5], -1, 1), "w": ([6, 2, 3, 2], -1, 1)},
        "%y = dist.conv2d %x, %w {groups = 2 : i64, strides = array<i64: 2, 1>, pads = array<i64: 1, 0, 0, 1>} : ({T:x}, {T:w}) -> tensor<2x6x3x5xf64>",
        [2, 6, 3, 5])
    c["max_pool2d"] = (
        {"x": ([1, 2, 4, 4], -1, 1)},
        "%y = dist.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : ({T:x}) -> tensor<1x2x2x2xf64>",
        [1, 2, 2, 2])
    c["avg_pool2d"] = (
        {"x": ([1, 2, 4, 4], -1, 1)},
        "%y = dist.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : ({T:x}) -> tensor<1x2x2x2xf64>",
        [1, 2, 2, 2])
    c["global_avg_pool"] = (
        {"x": ([2, 3, 2, 2], -1, 1)},
        "%y = dist.global_avg_pool %x : ({T:x}) -> tensor<2x3x1x1xf64>",
        [2, 3, 1, 1])
    return c


def build_module(params, body, out_shape, values, r):
    lines = []
    for name, (shape, _, _) in params.items():
        lines.append('dist.parameter @%s : %s = %s : %s' % (
            name, ttype(shape), dense(values[name]), ttype(shape)))
    args = ", ".join('%%%s: %s {dist.parameter = @%s}' % (n, ttype(s), n)
                     for n, (s, _, _) in params.items())
    for n, (s, _, _) in params.items():
        body = body.replace("{T:%s}" % n, ttype(s))
    rank = len(out_shape)
    lines.append("func.func @forward(%s) -> (tensor<f64> {dist.output_name = \"loss\"}) {" % args)
    lines += ["  " + l for l in body.splitlines()]
    lines.append("  %%r = dist.constant %s : %s" % (dense(r), ttype(out_shape)))
    lines.append("  %%yr = dist.mul %%y, %%r : (%s, %s) -> %s" % (
        ttype(out_shape), ttype(out_shape), ttype(out_shape)))
    lines.append("  %%loss = dist.reduce_sum %%yr axes = %s : (%s) -> tensor<f64>" % (
        json.dumps(list(range(rank))), ttype(out_shape)))
    lines.append("  return %loss : tensor<f64>")
    lines.append("}")
    return "\n".join(lines) + "\n"


def run_loss(exe, weights, out):
    subprocess.run([exe, "--weights", weights, "--output-dir", out],
                   check=True)
    return float(np.load(os.path.join(out, "loss.npy")))


def check(compiler, work, name, spec, seed):
    params, body, out_shape = spec
    rng = np.random.default_rng(seed)
    values = {n: rng.uniform(lo, hi, size=s) for n, (s, lo, hi) in params.items()}
    r = rng.uniform(-1, 1, size=out_shape)
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    src = os.path.join(d, "model.mlir")
    with open(src, "w") as f:
        f.write(build_module(params, body, out_shape, values, r))
    grad_exe, fwd_exe = os.path.join(d, "grad"), os.path.join(d, "fwd")
    subprocess.run([compiler, src, "--gradients", "-O0", "-o", grad_exe], check=True)
    subprocess.run([compiler, src, "-O0", "-o", fwd_exe], check=True)
    gout = os.path.join(d, "grads")
    subprocess.run([grad_exe, "--output-dir", gout], check=True)
    worst = 0.0
    weights = os.path.join(d, "w.safetensors")
    for n in params:
        g = np.load(os.path.join(gout, n + ".grad.npy"))
        fd = np.zeros_like(values[n])
        for idx in np.ndindex(values[n].shape):
            h = 1e-6 * max(1.0, abs(values[n][idx]))
            losses = []
            for sign in (1, -1):
                v = {k: a.copy() for k, a in values.items()}
                v[n][idx] += sign * h
                write_tensors(weights, v)
                losses.append(run_loss(fwd_exe, weights, os.path.join(d, "f")))
            fd[idx] = (losses[0] - losses[1]) / (2 * h)
        err = nan_is_worst(np.linalg.norm(g - fd) / max(np.linalg.norm(fd), 1e-12))
        worst = max(worst, err)
    ok = worst <= 1e-6
    print("%s %s: worst relative error %.1e" % ("ok" if ok else "FAIL", name, worst))
    return ok


def main():
    compiler, work = sys.argv[1:3]
    selected = sys.argv[3:]
    all_cases = cases()
    failures = 0
    for i, (name, spec) in enumerate(sorted(all_cases.items())):
        if selected and name not in selected:
            continue
        try:
            if not check(compiler, work, name, spec, seed=1000 + i):
                failures += 1
        except subprocess.CalledProcessError as e:
            print("FAIL %s: %s" % (name, e))
            failures += 1
    print("%d cases, %d failed" % (len([n for n in all_cases if not selected or n in selected]), failures))
    sys.exit(1 if failures else 0)


main()
