//===- ExactDouble.h - A double pass option that prints exactly -*- C++ -*-===//
//
// MLIR prints a `double` pass option with six significant digits, so a
// pipeline printed by `dist-compile --print-pipeline` and run again by
// `dist-opt --pass-pipeline=` would train with a rounded learning rate.
// ExactDouble prints the shortest text that reads back to the same double
// (at most 17 significant digits) and otherwise behaves as a double.
//
//===----------------------------------------------------------------------===//

#ifndef PASSES_EXACTDOUBLE_H
#define PASSES_EXACTDOUBLE_H

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace mlir::dist {

struct ExactDouble {
  double value = 0.0;

  ExactDouble() = default;
  ExactDouble(double value) : value(value) {}
  operator double() const { return value; }

  /// The shortest "%.Ng" (N <= 17) that reads back as `value`.
  std::string str() const {
    char text[32];
    for (int digits = 1; digits <= 17; ++digits) {
      std::snprintf(text, sizeof(text), "%.*g", digits, value);
      if (std::strtod(text, nullptr) == value)
        break;
    }
    return text;
  }
};

inline llvm::raw_ostream &operator<<(llvm::raw_ostream &os,
                                     const ExactDouble &d) {
  return os << d.str();
}

} // namespace mlir::dist

namespace llvm::cl {

template <>
class parser<mlir::dist::ExactDouble>
    : public basic_parser<mlir::dist::ExactDouble> {
public:
  parser(Option &option) : basic_parser(option) {}

  bool parse(Option &option, StringRef, StringRef arg,
             mlir::dist::ExactDouble &value) {
    double parsed;
    if (arg.getAsDouble(parsed))
      return option.error("'" + arg + "' is not a number");
    value = parsed;
    return false;
  }
  StringRef getValueName() const override { return "number"; }
  void printOptionDiff(const Option &option, mlir::dist::ExactDouble value,
                       const OptionValue<mlir::dist::ExactDouble> &,
                       size_t globalWidth) const {
    printOptionName(option, globalWidth);
    outs() << "= " << value.str() << "\n";
  }
};

} // namespace llvm::cl

#endif // PASSES_EXACTDOUBLE_H
