//===- Hyperparameters.h - A trainer's run-time hyperparameters -*- C++ -*-===//
//
// A trainer's `hparam` arguments (float64 scalars, docs/trainer-abi.md):
// values the driver writes before every step, so that the learning rate,
// weight decay, ... are options of the run rather than constants of the
// compiled step. Each defaults to its "meta" entry NAME (the compiled
// value) and is set with `--NAME-with-dashes VALUE`; a checkpoint records
// the values a run used and --resume continues with them.
//
// Everything here goes by the name alone, so the driver knows no particular
// hyperparameter: `lr` must be positive, a name ending in `_steps` takes an
// integer value, and every other one a non-negative number.
//
//===----------------------------------------------------------------------===//

#ifndef DISTRT_MAIN_HYPERPARAMETERS_H
#define DISTRT_MAIN_HYPERPARAMETERS_H

#include <string>
#include <utility>
#include <vector>

namespace distrt::model {

/// Hyperparameter values by name, in the model's argument order.
using HparamValues = std::vector<std::pair<std::string, double>>;

/// The option of hyperparameter `name`: "--" and the name with every '_'
/// replaced by '-' ("max_grad_norm": "--max-grad-norm").
std::string hparamFlag(const std::string &name);

/// Whether `name` can name a hyperparameter: letters, digits and '_',
/// starting with a letter, and an option the driver does not have itself.
/// On failure returns false and sets `error`.
bool checkHparamName(const std::string &name, std::string &error);

/// `text` in full as a finite number (no sign '+', no spaces, no hex).
bool parseFiniteNumber(const std::string &text, double &value);

/// The value of option `--NAME VALUE` for hyperparameter `name`, checked
/// against the rule of its name. On failure returns false and sets `error`
/// ("--lr: expected a positive number, got 'abc'").
bool parseHparamOption(const std::string &name, const std::string &text,
                       double &value, std::string &error);

/// A short text that reads back as exactly `value`: a whole number in full
/// ("100"), any other with the fewest significant digits that do ("0.001",
/// "0.0003", "1e-08"). For messages, --help and the checkpoint manifest.
std::string numberText(double value);

/// The value of `name` in `values`, or nullptr.
const double *findHparam(const HparamValues &values, const std::string &name);

} // namespace distrt::model

#endif // DISTRT_MAIN_HYPERPARAMETERS_H
