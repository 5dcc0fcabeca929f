//===- DistConvOps.td - Convolution, pooling and batch norm ---------------===//
//
// Images are NCHW; convolution weights are OIHW. `pads` are
// [top, left, bottom, right].
//
//===----------------------------------------------------------------------===//

#ifndef DIST_IR_DISTCONVOPS_TD
#define DIST_IR_DISTCONVOPS_TD

def Dist_Conv2DOp : Dist_Op<"conv2d", [Pure, InferTypeOpAdaptor]> {
  let summary = "2-D convolution (cross-correlation) with optional bias";
  let description = [{
    `input` is `N x C x H x W`, `weight` is `F x C/groups x KH x KW`, the
    optional `bias` has `F` elements. Output size along each spatial dimension
    is `(in + pad_begin + pad_end - dilation * (k - 1) - 1) / stride + 1`.

    ```mlir
    %y = dist.conv2d %x, %w {pads = array<i64: 1, 1, 1, 1>}
        : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x32x32xf32>
    ```
  }];
  let arguments = (ins Dist_FloatTensor:$input, Dist_FloatTensor:$weight,
                       Optional<Dist_FloatTensor>:$bias,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs Dist_FloatTensor:$result);
  let assemblyFormat = "$input `,` $weight (`,` $bias^)? attr-dict `:` "
                       "functional-type(operands, results)";
  let extraClassDeclaration = [{
    /// Multiply-adds times two: the floating-point operations of the
    /// convolution (a bias addition not counted), 0 when a shape is dynamic.
    int64_t getFlops();
  }];
}

class Dist_Pool2DOp<string mnemonic, string what, dag extraArgs> :
    Dist_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let summary = what # " pooling over 2-D windows";
  let description = "Takes the " # what # " of every `kernel` window of an "
    # "`N x C x H x W` input. Output size is `(in + pads - kernel) / stride + 1`, "
    # "rounded up instead of down with `ceil_mode`.\n\n```mlir\n%p = dist."
    # mnemonic # " %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}\n"
    # "    : (tensor<8x16x32x32xf32>) -> tensor<8x16x16x16xf32>\n```";
  let arguments = !con((ins Dist_FloatTensor:$input,
                        DenseI64ArrayAttr:$kernel,
                        DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                        DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                        UnitAttr:$ceil_mode), extraArgs);
  let results = (outs Dist_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::mlir::dist::inferPool2DResultType(
          loc, getOperationName(), adaptor.getInput().getType(),
          adaptor.getKernel(), adaptor.getStrides(), adaptor.getPads(),
          adaptor.getCeilMode(), types);
    }
  }];
}

def Dist_MaxPool2DOp : Dist_Pool2DOp<"max_pool2d", "maximum", (ins)>;
def Dist_AvgPool2DOp : Dist_Pool2DOp<"avg_pool2d", "average",
                                     (ins UnitAttr:$count_include_pad)>;

class Dist_Pool2DGradOp<string mnemonic, string what, dag extraArgs> :
    Dist_Op<mnemonic, [Pure]> {
  let summary = "gradient of " # what # " pooling over 2-D windows";
  let description = "Given `grad_output`, the gradient of a loss with respect "
    # "to the result of `dist." # !subst("_grad", "", mnemonic) # "` with the "
    # "same attributes, returns the gradient with respect to its input (the "
    # "result type). " # !if(!eq(what, "maximum"),
      "Each output's gradient goes to the first maximum of its window (in "
      # "row-major order), as in PyTorch.",
      "Each output's gradient is spread evenly over the window elements it "
      # "averaged.")
    # "\n\n```mlir\n%dx = dist." # mnemonic # " %x, %dy {kernel = array<i64: 2, 2>, "
    # "strides = array<i64: 2, 2>}\n    : (tensor<8x16x32x32xf32>, "
    # "tensor<8x16x16x16xf32>) -> tensor<8x16x32x32xf32>\n```";
  let arguments = !con((ins Dist_FloatTensor:$input,
                        Dist_FloatTensor:$grad_output,
                        DenseI64ArrayAttr:$kernel,
                        DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                        DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                        UnitAttr:$ceil_mode), extraArgs);
  let results = (outs Dist_FloatTensor:$result);
  let assemblyFormat = "$input `,` $grad_output attr-dict `:` "
                       "functional-type(operands, results)";
  let hasVerifier = 1;
}

def Dist_MaxPool2DGradOp : Dist_Pool2DGradOp<"max_pool2d_grad", "maximum", (ins)>;
def Dist_AvgPool2DGradOp : Dist_Pool2DGradOp<"avg_pool2d_grad", "average",
                                             (ins UnitAttr:$count_include_pad)>;

def Dist_GlobalAvgPoolOp : Dist_Op<"global_avg_pool", [Pure, InferTypeOpAdaptor]> {
  let summary = "average over all spatial dimensions";
  let description = [{
    Averages an `N x C x d1 x ...` input over every dimension after the
    second; those dimensions become 1.

    ```mlir
    %g = dist.global_avg_pool %x : (tensor<8x64x4x4xf32>) -> tensor<8x64x1x1xf32>
    ```
  }];
  let arguments = (ins Dist_FloatTensor:$input);
  let results = (outs Dist_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Dist_BatchNormOp : Dist_Op<"batch_norm", [Pure, InferTypeOpAdaptor]> {
  let summary = "batch normalization over the channel dimension";
  let description = [{
    Normalizes each channel (dimension 1) of `input`, then applies `scale` and
    `bias`. Without `training` it uses `mean` and `variance` (the running
    statistics); with `training` it uses the batch's own statistics (biased
    variance), as PyTorch does in `train()` mode. The four per-channel
    operands have one element per channel.

    ```mlir
    %y = dist.batch_norm %x, %g, %b, %mean, %var {epsilon = 1.000000e-05 : f64}
        : (tensor<8x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>,
           tensor<16xf32>, tensor<16xf32>) -> tensor<8x16x32x32xf32>
    ```
  }];
  let arguments = (ins Dist_FloatTensor:$input, Dist_FloatTensor:$scale,
                       Dist_FloatTensor:$bias, Dist_FloatTensor:$mean,
                       Dist_FloatTensor:$variance,
                       DefaultValuedAttr<F64Attr, "1e-5">:$epsilon,
                       DefaultValuedAttr<F64Attr, "0.9">:$momentum,
                       UnitAttr:$training);
  let results = (outs Dist_FloatTensor:$result);
  let assemblyFormat = "$input `,` $scale `,` $bias `,` $mean `,` $variance "
                       "attr-dict `:` functional-type(operands, results)";
}

#endif // DIST_IR_DISTCONVOPS_TD
