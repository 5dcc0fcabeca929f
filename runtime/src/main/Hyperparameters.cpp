//===- Hyperparameters.cpp - A trainer's run-time hyperparameters ---------===//

#include "Hyperparameters.h"
#include "TrainOptions.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace distrt::model {

namespace {

bool endsWith(const std::string &text, const std::string &suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

std::string hparamFlag(const std::string &name) {
  std::string flag = "--" + name;
  std::replace(flag.begin() + 2, flag.end(), '_', '-');
  return flag;
}

bool checkHparamName(const std::string &name, std::string &error) {
  bool ok = !name.empty() && std::isalpha(static_cast<unsigned char>(name[0]));
  for (char c : name)
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!ok) {
    error = "hparam '" + name +
            "': a hyperparameter's name is letters, digits and '_', "
            "starting with a letter (it becomes an option)";
    return false;
  }
  std::string flag = hparamFlag(name);
  const std::vector<std::string> &own = trainFlags();
  if (flag == "--help" ||
      std::find(own.begin(), own.end(), flag) != own.end()) {
    error = "hparam '" + name + "': its option " + flag +
            " is one of the driver's own";
    return false;
  }
  return true;
}

bool parseFiniteNumber(const std::string &text, double &value) {
  const char *first = text.data(), *last = text.data() + text.size();
  auto result = std::from_chars(first, last, value);
  return first != last && result.ec == std::errc() && result.ptr == last &&
         std::isfinite(value);
}

bool parseHparamOption(const std::string &name, const std::string &text,
                       double &value, std::string &error) {
  bool positive = name == "lr", integer = endsWith(name, "_steps");
  bool ok = parseFiniteNumber(text, value) &&
            (positive ? value > 0 : value >= 0) &&
            (!integer || value == std::floor(value));
  if (ok && value == 0)
    value = 0; // not -0
  if (!ok)
    error = hparamFlag(name) + ": expected a " +
            (positive  ? "positive number"
             : integer ? "non-negative integer"
                       : "non-negative number") +
            ", got '" + text + "'";
  return ok;
}

std::string numberText(double value) {
  char text[64];
  // Whole numbers (step counts) in full; others with the fewest significant
  // digits that read back exactly (%.17g always would, but writes 0.1 as
  // 0.10000000000000001).
  if (value == std::floor(value) && std::fabs(value) < 0x1p53) {
    std::snprintf(text, sizeof(text), "%.0f", value);
    return text;
  }
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof(text), "%.*g", digits, value);
    double back;
    if (parseFiniteNumber(text, back) && back == value)
      break;
  }
  return text;
}

const double *findHparam(const HparamValues &values, const std::string &name) {
  for (const auto &entry : values)
    if (entry.first == name)
      return &entry.second;
  return nullptr;
}

} // namespace distrt::model
