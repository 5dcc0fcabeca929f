//===- ConvertEinsum.cpp - ONNX Einsum to dist products and sums ----------===//
//
// Einsum has no op of its own: the equation is parsed at import and each
// operand's labels are brought to products and sums dist already has.
//
//  - A label repeated within one operand takes the diagonal: the two axes go
//    last, merge into one, and a strided slice keeps every (n+1)-th element.
//  - A label no other operand and not the output has is summed right away.
//  - Operands are folded left to right. Of a pair, the labels both have are
//    batch dimensions when the output or a later operand still needs them and
//    contracted otherwise; the pair becomes one batched `dist.matmul`
//    (`[batch..., M, K] x [batch..., K, N]`) between transposes and reshapes.
//    Integer operands, which `dist.matmul` does not take, are multiplied with
//    broadcasting and summed instead.
//  - The last operand is summed over what the output lacks and transposed to
//    the output's order.
//
// So the gradients, sharding and both backends are those of the ops built.
//
//===----------------------------------------------------------------------===//

#include "passes/Import/Decompose.h"

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::onnx_import;

namespace {
/// A dimension's label: letters are 0..51, the ellipsis' dimensions 52 on
/// (the ellipsis' first dimension, counted over the widest ellipsis, is 52).
using Label = int;
constexpr Label kEllipsisBase = 52;

/// One term of the equation: its labels, and where "..." stands (or -1).
struct Term {
  SmallVector<Label> letters;
  int ellipsisAt = -1;
};

/// A value during the fold with the label of each of its dimensions.
struct Labeled {
  Value value;
  SmallVector<Label> labels;
};
} // namespace

static std::string labelName(Label label) {
  if (label >= kEllipsisBase)
    return "...[" + std::to_string(label - kEllipsisBase) + "]";
  return std::string(1, label < 26 ? char('A' + label) : char('a' + label - 26));
}

/// Parses one term ("ij", "...ii", "b...") or reports what is wrong.
static FailureOr<Term> parseTerm(NodeImporter &n, StringRef text,
                                 StringRef equation) {
  Term term;
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    if (text.substr(i).starts_with("...")) {
      if (term.ellipsisAt >= 0)
        return n.emitError() << "equation '" << equation
                             << "': a term has two ellipses ('" << text << "')",
               failure();
      term.ellipsisAt = term.letters.size();
      i += 3;
      continue;
    }
    if (c >= 'A' && c <= 'Z')
      term.letters.push_back(c - 'A');
    else if (c >= 'a' && c <= 'z')
      term.letters.push_back(26 + (c - 'a'));
    else
      return n.emitError() << "equation '" << equation
                           << "': unexpected character '" << c
                           << "' (subscripts are letters, '...', ',' and '->')",
             failure();
    ++i;
  }
  return term;
}

/// The labels of `term` for an operand of rank `rank` whose ellipsis stands
/// for the last `rank - letters` of `ellipsisRank` ellipsis dimensions.
static SmallVector<Label> expandTerm(const Term &term, int64_t rank,
                                     int64_t ellipsisRank) {
  SmallVector<Label> labels(term.letters.begin(), term.letters.end());
  if (term.ellipsisAt < 0)
    return labels;
  int64_t covered = rank - static_cast<int64_t>(term.letters.size());
  SmallVector<Label> dots;
  for (int64_t i = ellipsisRank - covered; i < ellipsisRank; ++i)
    dots.push_back(kEllipsisBase + i);
  labels.insert(labels.begin() + term.ellipsisAt, dots.begin(), dots.end());
  return labels;
}

static ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// `x` with its dimensions permuted (itself when `permutation` is the
/// identity).
static Value transpose(NodeImporter &n, Value x,
                       ArrayRef<int64_t> permutation) {
  if (llvm::equal(permutation, llvm::seq<int64_t>(0, permutation.size())))
    return x;
  return n.buildValue<TransposeOp>(x, permutation);
}

/// `x` summed over the dimensions whose label `drop` selects.
static Labeled sumOut(NodeImporter &n, Labeled x,
                      function_ref<bool(Label)> drop) {
  SmallVector<int64_t> axes;
  Labeled result{Value(), {}};
  for (auto [axis, label] : llvm::enumerate(x.labels)) {
    if (drop(label))
      axes.push_back(axis);
    else
      result.labels.push_back(label);
  }
  if (axes.empty())
    return x;
  result.value = n.buildValue<ReduceSumOp>(x.value, axes, false);
  return result;
}

/// `x` brought to `labels` order (a permutation of its own labels).
static Labeled permuteTo(NodeImporter &n, Labeled x, ArrayRef<Label> labels) {
  SmallVector<int64_t> permutation;
  for (Label label : labels)
    permutation.push_back(llvm::find(x.labels, label) - x.labels.begin());
  return {transpose(n, x.value, permutation), SmallVector<Label>(labels)};
}

/// Takes the diagonal of every label repeated within `x`.
static Labeled takeDiagonals(NodeImporter &n, Labeled x) {
  for (;;) {
    int64_t first = -1, second = -1;
    for (size_t i = 0; i < x.labels.size() && second < 0; ++i)
      for (size_t j = i + 1; j < x.labels.size(); ++j)
        if (x.labels[i] == x.labels[j]) {
          first = i;
          second = j;
          break;
        }
    if (second < 0)
      return x;
    // The pair goes last, merges into one dimension of n*n, and the stride
    // n+1 from 0 reads (0,0), (1,1), ...
    SmallVector<int64_t> permutation;
    SmallVector<Label> labels;
    for (int64_t i = 0, e = x.labels.size(); i < e; ++i)
      if (i != first && i != second) {
        permutation.push_back(i);
        labels.push_back(x.labels[i]);
      }
    permutation.append({first, second});
    Value moved = transpose(n, x.value, permutation);
    SmallVector<int64_t> shape(shapeOf(moved));
    int64_t size = shape.back();
    shape.pop_back();
    shape.back() = size * size;
    Value merged = n.reshape(moved, shape);
    SmallVector<int64_t> starts(shape.size(), 0), strides(shape.size(), 1);
    strides.back() = size + 1;
    shape.back() = size;
    auto type = cast<RankedTensorType>(merged.getType()).clone(shape);
    labels.push_back(x.labels[first]);
    x = {n.create<SliceOp>(type, merged, starts, strides), labels};
  }
}

/// `x` with each dimension of `labels` broadcast to `sizes[label]`.
static Labeled broadcastTo(NodeImporter &n, Labeled x,
                           const llvm::DenseMap<Label, int64_t> &sizes) {
  SmallVector<int64_t> shape;
  for (Label label : x.labels)
    shape.push_back(sizes.lookup(label));
  if (shape == shapeOf(x.value))
    return x;
  auto type = cast<RankedTensorType>(x.value.getType()).clone(shape);
  return {n.create<BroadcastOp>(type, x.value), x.labels};
}


/// The product of `a` and `b` summed over the labels both have that `needed`
/// does not hold; the result's labels are the batch labels (both have them,
/// `needed` holds them), then `a`'s own, then `b`'s own.
static Labeled contract(NodeImporter &n, Labeled a, Labeled b,
                        function_ref<bool(Label)> needed,
                        const llvm::DenseMap<Label, int64_t> &sizes) {
  SmallVector<Label> batch, aOwn, bOwn, summed;
  for (Label label : a.labels) {
    bool inB = llvm::is_contained(b.labels, label);
    (inB ? (needed(label) ? batch : summed) : aOwn).push_back(label);
  }
  for (Label label : b.labels)
    if (!llvm::is_contained(a.labels, label))
      bOwn.push_back(label);
  auto sizesOf = [&](ArrayRef<Label> labels) {
    SmallVector<int64_t> result;
    for (Label label : labels)
      result.push_back(sizes.lookup(label));
    return result;
  };
  SmallVector<Label> resultLabels = batch;
  resultLabels.append(aOwn);
  resultLabels.append(bOwn);
  SmallVector<int64_t> resultShape = sizesOf(resultLabels);

  // A size-1 dimension that the other operand has larger is broadcast first.
  a = broadcastTo(n, a, sizes);
  b = broadcastTo(n, b, sizes);

  Type elementType = getElementTypeOrSelf(a.value.getType());
  if (!isa<FloatType>(elementType)) {
    // Integers: both operands over [batch, aOwn, bOwn, summed] with size 1
    // where they lack a label, multiplied with broadcasting, then summed.
    SmallVector<Label> all = resultLabels;
    all.append(summed);
    auto align = [&](Labeled x) {
      SmallVector<Label> own;
      for (Label label : all)
        if (llvm::is_contained(x.labels, label))
          own.push_back(label);
      Value moved = permuteTo(n, x, own).value;
      SmallVector<int64_t> shape;
      for (Label label : all)
        shape.push_back(llvm::is_contained(x.labels, label)
                            ? sizes.lookup(label)
                            : 1);
      return n.reshape(moved, shape);
    };
    Value product = n.buildValue<MulOp>(align(a), align(b));
    Labeled full{product, all};
    return sumOut(n, full, [&](Label label) {
      return llvm::is_contained(summed, label);
    });
  }

  // Floats: [batch..., M, K] x [batch..., K, N] -> [batch..., M, N]. Without
  // batch labels the lhs keeps its own dimensions ([aOwn..., K] x [K, N], as
  // a linear layer), and with them they keep theirs, so the product looks
  // like the MatMul PyTorch exports and the passes matching linear layers
  // and attention see one.
  SmallVector<Label> aOrder = batch, bOrder = batch;
  aOrder.append(aOwn);
  aOrder.append(summed);
  bOrder.append(summed);
  bOrder.append(bOwn);
  int64_t m = ShapedType::getNumElements(sizesOf(aOwn)), k = ShapedType::getNumElements(sizesOf(summed)),
          nSize = ShapedType::getNumElements(sizesOf(bOwn));
  SmallVector<int64_t> lhsShape = sizesOf(batch), rhsShape = sizesOf(batch);
  if (batch.empty() && !aOwn.empty())
    lhsShape = sizesOf(aOwn);
  else
    lhsShape.push_back(m);
  lhsShape.push_back(k);
  rhsShape.append({k, nSize});
  Value lhs = n.reshape(permuteTo(n, a, aOrder).value, lhsShape);
  Value rhs = n.reshape(permuteTo(n, b, bOrder).value, rhsShape);
  Value product = n.buildValue<MatmulOp>(lhs, rhs, false, false);
  if (!product)
    return {};
  return {n.reshape(product, resultShape), resultLabels};
}

static LogicalResult convertEinsum(NodeImporter &n) {
  std::string equation;
  for (char c : n.stringAttr("equation", ""))
    if (c != ' ')
      equation.push_back(c);
  if (equation.empty())
    return n.emitError() << "the 'equation' attribute is missing or empty",
           failure();

  // Terms: "a,b,c->out" or, without "->", the implicit output.
  StringRef eq(equation);
  auto [inputsText, outputText] = eq.split("->");
  bool explicitOutput = eq.contains("->");
  SmallVector<StringRef> inputTexts;
  inputsText.split(inputTexts, ',');
  unsigned numOperands = n.numInputs();
  if (inputTexts.size() != numOperands)
    return n.emitError() << "equation '" << equation << "' has "
                         << inputTexts.size() << " input terms for "
                         << numOperands << " inputs",
           failure();

  SmallVector<Value> values;
  SmallVector<Term> terms;
  int64_t ellipsisRank = 0;
  for (unsigned i = 0; i < numOperands; ++i) {
    Value v = n.input(i);
    if (!v)
      return failure();
    auto type = cast<RankedTensorType>(v.getType());
    if (!type.hasStaticShape())
      return n.emitError() << "input " << i << " needs a static shape, got "
                           << type,
             failure();
    if (i > 0 && type.getElementType() !=
                     getElementTypeOrSelf(values.front().getType()))
      return n.emitError() << "inputs have different element types", failure();
    FailureOr<Term> term = parseTerm(n, inputTexts[i], equation);
    if (failed(term))
      return failure();
    int64_t letters = term->letters.size();
    if (term->ellipsisAt < 0 ? type.getRank() != letters
                             : type.getRank() < letters)
      return n.emitError() << "equation '" << equation << "': term '"
                           << inputTexts[i] << "' has " << letters
                           << " subscripts"
                           << (term->ellipsisAt < 0 ? "" : " and '...'")
                           << ", input " << i << " has rank "
                           << type.getRank(),
             failure();
    if (term->ellipsisAt >= 0)
      ellipsisRank = std::max(ellipsisRank, type.getRank() - letters);
    values.push_back(v);
    terms.push_back(std::move(*term));
  }

  // Each operand's labels, and one size per label (1 broadcasts).
  SmallVector<Labeled> operands;
  llvm::DenseMap<Label, int64_t> sizes;
  llvm::DenseMap<Label, int> uses;
  for (unsigned i = 0; i < numOperands; ++i) {
    SmallVector<Label> labels =
        expandTerm(terms[i], shapeOf(values[i]).size(), ellipsisRank);
    for (auto [label, size] : llvm::zip(labels, shapeOf(values[i]))) {
      ++uses[label];
      auto [it, inserted] = sizes.try_emplace(label, size);
      if (inserted || it->second == size || size == 1)
        continue;
      if (it->second == 1) {
        it->second = size;
        continue;
      }
      return n.emitError() << "equation '" << equation << "': subscript '"
                           << labelName(label) << "' has sizes " << it->second
                           << " and " << size << " (input " << i << ")",
             failure();
    }
    operands.push_back({values[i], labels});
  }

  // The output's labels.
  SmallVector<Label> output;
  if (explicitOutput) {
    FailureOr<Term> term = parseTerm(n, outputText, equation);
    if (failed(term))
      return failure();
    // An output without "..." sums the ellipsis' dimensions, as any label
    // the output lacks (PyTorch's einsum does; numpy refuses).
    output = expandTerm(*term, term->letters.size() + ellipsisRank,
                        ellipsisRank);
    for (Label label : output) {
      if (llvm::count(output, label) > 1)
        return n.emitError() << "equation '" << equation << "': subscript '"
                             << labelName(label)
                             << "' appears twice in the output",
               failure();
      if (!uses.count(label))
        return n.emitError() << "equation '" << equation << "': output "
                             << "subscript '" << labelName(label)
                             << "' is in no input",
               failure();
    }
  } else {
    // Implicit: the ellipsis, then the letters used once, in ASCII order
    // (as numpy: upper case before lower case).
    for (int64_t i = 0; i < ellipsisRank; ++i)
      output.push_back(kEllipsisBase + i);
    for (Label label = 0; label < kEllipsisBase; ++label)
      if (uses.lookup(label) == 1)
        output.push_back(label);
  }

  // The fold: diagonals and lone labels first, then one pair at a time.
  auto neededAfter = [&](unsigned next) {
    llvm::SmallDenseSet<Label> needed(output.begin(), output.end());
    for (unsigned j = next; j < numOperands; ++j)
      needed.insert(operands[j].labels.begin(), operands[j].labels.end());
    return needed;
  };
  for (unsigned i = 0; i < numOperands; ++i) {
    operands[i] = takeDiagonals(n, operands[i]);
    if (!operands[i].value)
      return failure();
    // A label only this operand has, and the output lacks, is summed now.
    llvm::SmallDenseSet<Label> elsewhere(output.begin(), output.end());
    for (unsigned j = 0; j < numOperands; ++j)
      if (j != i)
        elsewhere.insert(operands[j].labels.begin(), operands[j].labels.end());
    operands[i] = sumOut(n, operands[i], [&](Label label) {
      return !elsewhere.contains(label);
    });
    if (!operands[i].value)
      return failure();
  }
  Labeled acc = operands.front();
  for (unsigned i = 1; i < numOperands; ++i) {
    llvm::SmallDenseSet<Label> needed = neededAfter(i + 1);
    auto isNeeded = [&](Label label) { return needed.contains(label); };
    // A label of either side that neither the other side nor anything
    // after needs is summed before the product.
    auto lone = [&](const Labeled &other) {
      return [&](Label label) {
        return !isNeeded(label) && !llvm::is_contained(other.labels, label);
      };
    };
    Labeled next = operands[i];
    acc = sumOut(n, acc, lone(next));
    next = sumOut(n, next, lone(acc));
    if (!acc.value || !next.value)
      return failure();
    acc = contract(n, acc, next, isNeeded, sizes);
    if (!acc.value)
      return failure();
  }
  acc = sumOut(n, acc, [&](Label label) {
    return !llvm::is_contained(output, label);
  });
  if (!acc.value)
    return failure();
  // A label every operand had with size 1 and the output keeps broadcast.
  acc = broadcastTo(n, acc, sizes);
  n.setOutput(0, permuteTo(n, acc, output).value);
  return success();
}

void mlir::dist::onnx_import::addEinsumConverters(ConverterTable &table) {
  table["Einsum"] = convertEinsum;
}
