//===- Manifest.cpp - A checkpoint's manifest.json ------------------------===//

#include "Manifest.h"
#include "../core/Json.h"
#include "Crc32c.h"
#include "Job.h"

#include <algorithm>
#include <charconv>
#include <set>

namespace distrt::model {

namespace {

using json::Value;

/// One tensor's entry, with its checksum if the manifest has one.
std::string specJson(const TensorSpec &spec, const Manifest &manifest) {
  std::string shape;
  for (int32_t d = 0; d < spec.rank; ++d)
    shape += (d ? ", " : "") + std::to_string(spec.shape[d]);
  uint32_t crc;
  std::string checksum = manifest.checksum(spec.name, crc)
                             ? ", \"crc32c\": \"" + crc32cText(crc) + "\""
                             : "";
  return "{\"name\": " + json::quote(spec.name) + ", \"dtype\": \"" +
         distrt_dtype_name(spec.dtype) + "\", \"shape\": [" + shape + "]" +
         checksum + "}";
}

std::string specsJson(const std::vector<TensorSpec> &specs,
                      const Manifest &manifest) {
  if (specs.empty())
    return "[]";
  std::string text = "[";
  for (size_t i = 0; i < specs.size(); ++i)
    text +=
        std::string(i ? ",\n" : "\n") + "    " + specJson(specs[i], manifest);
  return text + "\n  ]";
}

std::string dataJson(const DataState &data) {
  std::string text =
      "{\"source\": \"" + std::string(dataKindName(data.kind)) + "\"";
  switch (data.kind) {
  case DataState::None:
    break;
  case DataState::Inputs:
    text += ", \"files\": {";
    for (size_t i = 0; i < data.files.size(); ++i)
      text += (i ? ", " : "") + json::quote(data.files[i].first) + ": " +
              json::quote(data.files[i].second);
    text += "}";
    break;
  case DataState::Tokens:
    text += ", \"file\": " + json::quote(data.file) + ", \"dtype\": \"" +
            distrt_dtype_name(data.tokenDtype) +
            "\", \"tokens\": " + std::to_string(data.count) +
            ", \"position\": " + std::to_string(data.position);
    break;
  case DataState::Samples:
    text += ", \"file\": " + json::quote(data.file) +
            ", \"samples\": " + std::to_string(data.count) +
            ", \"position\": " + std::to_string(data.position);
    break;
  case DataState::Synthetic:
    text += ", \"seed\": " + std::to_string(data.seed);
    break;
  }
  return text + "}";
}

/// Reads the fields of the manifest, each failure naming the file and the
/// field ("manifest.json: data.position: expected a non-negative integer").
class Reader {
public:
  Reader(const std::string &path, std::string &error)
      : path(path), error(error) {}

  bool fail(const std::string &field, const std::string &what) {
    error = path + ": " + field + ": " + what;
    return false;
  }

  /// `object`'s member `key`, of `kind`; every object is checked for
  /// duplicate keys on the way.
  const Value *get(const Value &object, const std::string &field,
                   const char *key, Value::Kind kind) {
    std::string name = field.empty() ? key : field + "." + key;
    const Value *value = object.find(key);
    if (!value) {
      fail(name, "missing");
      return nullptr;
    }
    if (value->kind != kind) {
      fail(name, std::string("expected ") + json::kindName(kind) + ", got " +
                     json::kindName(value->kind));
      return nullptr;
    }
    if (kind == Value::Object && !unique(*value, name))
      return nullptr;
    return value;
  }

  bool unique(const Value &object, const std::string &field) {
    std::set<std::string> keys;
    for (const json::Member &member : object.members)
      if (!keys.insert(member.key).second)
        return fail(field.empty() ? member.key : field + "." + member.key,
                    "duplicate key");
    return true;
  }

  bool number(const Value &object, const std::string &field, const char *key,
              uint64_t &out) {
    const Value *value = get(object, field, key, Value::Number);
    if (!value)
      return false;
    if (!value->asUint64(out))
      return fail(field.empty() ? key : field + "." + key,
                  "expected a non-negative integer, got " + value->text);
    return true;
  }

  /// A signed integer that fits in int64.
  bool signedNumber(const Value &object, const std::string &field,
                    const char *key, int64_t &out) {
    const Value *value = get(object, field, key, Value::Number);
    if (!value)
      return false;
    const std::string &text = value->text;
    size_t start = !text.empty() && text[0] == '-'; // after a sign
    bool integer =
        text.size() > start &&
        text.find_first_not_of("0123456789", start) == std::string::npos;
    const char *end = text.data() + text.size();
    auto result = std::from_chars(text.data(), end, out);
    if (!integer || result.ec != std::errc() || result.ptr != end)
      return fail(field.empty() ? key : field + "." + key,
                  "expected a signed 64-bit integer, got " + text);
    return true;
  }

  bool string(const Value &object, const std::string &field, const char *key,
              std::string &out) {
    const Value *value = get(object, field, key, Value::String);
    if (value)
      out = value->text;
    return value != nullptr;
  }

  bool dtype(const Value &object, const std::string &field, distrt_dtype &out) {
    std::string name;
    if (!string(object, field, "dtype", name))
      return false;
    for (int d = 0; d < DISTRT_NUM_DTYPES; ++d)
      if (name == distrt_dtype_name(static_cast<distrt_dtype>(d))) {
        out = static_cast<distrt_dtype>(d);
        return true;
      }
    return fail(field + ".dtype", "unknown dtype '" + name + "'");
  }

  /// The entries of `key`; with `checksums`, each entry's optional
  /// "crc32c".
  bool
  specs(const Value &root, const char *key, Role role,
        std::vector<TensorSpec> &out,
        std::vector<std::pair<std::string, uint32_t>> *checksums = nullptr) {
    const Value *list = get(root, "", key, Value::Array);
    if (!list)
      return false;
    for (size_t i = 0; i < list->items.size(); ++i) {
      std::string field = std::string(key) + "[" + std::to_string(i) + "]";
      const Value &item = list->items[i];
      if (item.kind != Value::Object)
        return fail(field, "expected an object");
      if (!unique(item, field))
        return false;
      TensorSpec spec;
      spec.role = role;
      const Value *shape = get(item, field, "shape", Value::Array);
      if (!string(item, field, "name", spec.name) ||
          !dtype(item, field, spec.dtype) || !shape)
        return false;
      if (shape->items.size() > DISTRT_MAX_RANK)
        return fail(field + ".shape", "more than " +
                                          std::to_string(DISTRT_MAX_RANK) +
                                          " dimensions");
      spec.rank = static_cast<int32_t>(shape->items.size());
      for (int32_t d = 0; d < spec.rank; ++d) {
        uint64_t dim;
        if (!shape->items[d].asUint64(dim) || dim > (uint64_t(1) << 48))
          return fail(field + ".shape", "expected dimensions, integers in "
                                        "[0, 2^48]");
        spec.shape[d] = static_cast<int64_t>(dim);
      }
      if (checksums && item.find("crc32c")) {
        std::string text;
        uint32_t crc;
        if (!string(item, field, "crc32c", text))
          return false;
        if (!parseCrc32c(text, crc))
          return fail(field + ".crc32c",
                      "expected 8 hexadecimal digits, got '" + text + "'");
        checksums->emplace_back(spec.name, crc);
      }
      out.push_back(spec);
    }
    return true;
  }

  bool data(const Value &root, DataState &out) {
    const Value *data = get(root, "", "data", Value::Object);
    std::string source;
    if (!data || !string(*data, "data", "source", source))
      return false;
    if (!parseDataKind(source, out.kind))
      return fail("data.source", "unknown source '" + source + "'");
    switch (out.kind) {
    case DataState::None:
      return true;
    case DataState::Inputs: {
      const Value *files = get(*data, "data", "files", Value::Object);
      if (!files)
        return false;
      for (const json::Member &member : files->members) {
        if (member.value.kind != Value::String)
          return fail("data.files." + member.key, "expected a string");
        out.files.emplace_back(member.key, member.value.text);
      }
      return true;
    }
    case DataState::Tokens: {
      std::string dtype;
      if (!string(*data, "data", "file", out.file) ||
          !string(*data, "data", "dtype", dtype) ||
          !number(*data, "data", "tokens", out.count) ||
          !number(*data, "data", "position", out.position))
        return false;
      if (dtype != "uint16" && dtype != "int32")
        return fail("data.dtype",
                    "expected uint16 or int32, got '" + dtype + "'");
      out.tokenDtype = dtype == "int32" ? DISTRT_I32 : DISTRT_U16;
      return true;
    }
    case DataState::Samples:
      return string(*data, "data", "file", out.file) &&
             number(*data, "data", "samples", out.count) &&
             number(*data, "data", "position", out.position);
    case DataState::Synthetic:
      return number(*data, "data", "seed", out.seed);
    }
    return false;
  }

  /// The mesh, informational: an array of device counts.
  bool mesh(const Value &root, std::vector<int64_t> &out) {
    const Value *list = get(root, "", "mesh", Value::Array);
    if (!list)
      return false;
    for (const Value &item : list->items) {
      uint64_t size;
      if (!item.asUint64(size) || size == 0 || size > (uint64_t(1) << 31))
        return fail("mesh", "expected device counts, integers in [1, 2^31]");
      out.push_back(static_cast<int64_t>(size));
    }
    return true;
  }

  bool stringMap(const Value &root, const char *key,
                 std::vector<std::pair<std::string, std::string>> &out) {
    const Value *object = get(root, "", key, Value::Object);
    if (!object)
      return false;
    for (const json::Member &member : object->members) {
      if (member.value.kind != Value::String)
        return fail(std::string(key) + "." + member.key, "expected a string");
      out.emplace_back(member.key, member.value.text);
    }
    return true;
  }

  /// `hparams`: an object of finite numbers, which read back exactly.
  bool hparams(const Value &root, HparamValues &out) {
    const Value *object = get(root, "", "hparams", Value::Object);
    if (!object)
      return false;
    for (const json::Member &member : object->members) {
      double value;
      if (member.value.kind != Value::Number ||
          !parseFiniteNumber(member.value.text, value))
        return fail("hparams." + member.key,
                    "expected a finite number, got " +
                        (member.value.kind == Value::Number
                             ? member.value.text
                             : std::string(json::kindName(member.value.kind))));
      out.emplace_back(member.key, value);
    }
    return true;
  }

  bool sizeMap(const Value &root, const char *key,
               std::vector<std::pair<std::string, uint64_t>> &out) {
    const Value *object = get(root, "", key, Value::Object);
    if (!object)
      return false;
    for (const json::Member &member : object->members) {
      uint64_t size;
      if (!number(*object, key, member.key.c_str(), size))
        return false;
      out.emplace_back(member.key, size);
    }
    return true;
  }

private:
  const std::string &path;
  std::string &error;
};

/// The model's tensors of `role` against the checkpoint's (any order).
bool sameSpecs(const std::vector<const TensorSpec *> &model,
               const std::vector<TensorSpec> &saved, const char *what,
               const std::string &where, std::string &error) {
  for (const TensorSpec *spec : model) {
    auto it =
        std::find_if(saved.begin(), saved.end(),
                     [&](const TensorSpec &s) { return s.name == spec->name; });
    if (it == saved.end()) {
      error = where + " is of another model: it has no " + what + " '" +
              spec->name + "'";
      return false;
    }
    if (it->typeText() != spec->typeText()) {
      error = where + " is of another model: " + what + " '" + spec->name +
              "' is " + it->typeText() + " there, " + spec->typeText() +
              " in the model";
      return false;
    }
  }
  for (const TensorSpec &spec : saved)
    if (std::none_of(model.begin(), model.end(), [&](const TensorSpec *s) {
          return s->name == spec.name;
        })) {
      error = where + " is of another model: it has " + what + " '" +
              spec.name + "', which the model lacks";
      if (spec.name.rfind("async.", 0) == 0)
        error += " (a checkpoint of asynchronous data parallelism taken "
                 "with updates pending: resume it with that program and "
                 "its --staleness, or save one with --staleness 0)";
      return false;
    }
  return true;
}

std::vector<TensorSpec> copies(const std::vector<const TensorSpec *> &specs) {
  std::vector<TensorSpec> out;
  for (const TensorSpec *spec : specs)
    out.push_back(*spec);
  return out;
}

} // namespace

bool Manifest::fileSize(const std::string &file, uint64_t &size) const {
  for (const auto &entry : files)
    if (entry.first == file) {
      size = entry.second;
      return true;
    }
  return false;
}

bool Manifest::checksum(const std::string &name, uint32_t &crc) const {
  for (const auto &entry : checksums)
    if (entry.first == name) {
      crc = entry.second;
      return true;
    }
  return false;
}

Manifest makeManifest(const Interface &model, uint64_t step, int64_t seed,
                      const HparamValues &hparams,
                      std::vector<std::pair<std::string, uint32_t>> checksums,
                      const DataState &data,
                      std::vector<std::pair<std::string, uint64_t>> files) {
  Manifest manifest;
  manifest.step = step;
  manifest.seed = seed;
  manifest.hparams = hparams;
  manifest.checksums = std::move(checksums);
  manifest.mesh = model.mesh;
  manifest.inputs = copies(model.withRole(Role::Input));
  manifest.params = copies(model.withRole(Role::Param));
  manifest.state = copies(model.withRole(Role::State));
  manifest.meta = model.meta;
  manifest.data = data;
  manifest.files = std::move(files);
  return manifest;
}

std::string manifestJson(const Manifest &manifest) {
  std::string mesh, hparams, meta, files;
  for (int64_t size : manifest.mesh)
    mesh += (mesh.empty() ? "" : ", ") + std::to_string(size);
  // The shortest text that reads back as the same double.
  for (const auto &[name, value] : manifest.hparams)
    hparams += (hparams.empty() ? "" : ", ") + json::quote(name) + ": " +
               numberText(value);
  for (const auto &[key, value] : manifest.meta)
    meta += (meta.empty() ? "" : ", ") + json::quote(key) + ": " +
            json::quote(value);
  for (const auto &[file, size] : manifest.files)
    files += (files.empty() ? "" : ", ") + json::quote(file) + ": " +
             std::to_string(size);
  return std::string("{\n") +
         "  \"format\": " + json::quote(kCheckpointFormat) + ",\n" +
         "  \"step\": " + std::to_string(manifest.step) + ",\n" +
         "  \"seed\": " + std::to_string(manifest.seed) + ",\n" +
         "  \"mesh\": [" + mesh + "],\n" +
         "  \"inputs\": " + specsJson(manifest.inputs, manifest) + ",\n" +
         "  \"params\": " + specsJson(manifest.params, manifest) + ",\n" +
         "  \"state\": " + specsJson(manifest.state, manifest) + ",\n" +
         "  \"hparams\": {" + hparams + "},\n" + "  \"meta\": {" + meta +
         "},\n" + "  \"data\": " + dataJson(manifest.data) + ",\n" +
         "  \"files\": {" + files + "}\n}\n";
}

bool parseManifest(const std::string &text, const std::string &path,
                   Manifest &manifest, std::string &error) {
  manifest = Manifest();
  Value root;
  if (!json::parse(text, root, error)) {
    error = path + ": malformed JSON: " + error + " (truncated?)";
    return false;
  }
  Reader reader(path, error);
  if (root.kind != Value::Object)
    return reader.fail("the manifest", std::string("expected an object, got ") +
                                           json::kindName(root.kind));
  std::string format;
  if (!reader.unique(root, "") || !reader.string(root, "", "format", format))
    return false;
  if (format != kCheckpointFormat)
    return reader.fail("format", "expected '" + std::string(kCheckpointFormat) +
                                     "', got '" + format + "'");
  if (!reader.number(root, "", "step", manifest.step))
    return false;
  if (manifest.step == 0)
    return reader.fail("step", "expected a positive integer, got 0");
  if ((root.find("mesh") && !reader.mesh(root, manifest.mesh)) ||
      (root.find("seed") &&
       !reader.signedNumber(root, "", "seed", manifest.seed)))
    return false;
  return reader.specs(root, "inputs", Role::Input, manifest.inputs) &&
         reader.specs(root, "params", Role::Param, manifest.params,
                      &manifest.checksums) &&
         reader.specs(root, "state", Role::State, manifest.state,
                      &manifest.checksums) &&
         (!root.find("hparams") || reader.hparams(root, manifest.hparams)) &&
         reader.stringMap(root, "meta", manifest.meta) &&
         reader.data(root, manifest.data) &&
         reader.sizeMap(root, "files", manifest.files);
}

bool checkManifest(const Interface &model, const Manifest &manifest,
                   const std::string &where, std::string &error) {
  auto metaOf = [](const std::vector<std::pair<std::string, std::string>> &meta,
                   const std::string &key) -> std::string {
    for (const auto &entry : meta)
      if (entry.first == key)
        return entry.second;
    return "";
  };
  std::string mine = metaOf(model.meta, "optimizer"),
              theirs = metaOf(manifest.meta, "optimizer");
  if (mine != theirs) {
    error = where + " was written with optimizer '" +
            (theirs.empty() ? "(none)" : theirs) + "', the model uses '" +
            (mine.empty() ? "(none)" : mine) + "'";
    return false;
  }
  if (!sameSpecs(model.withRole(Role::Input), manifest.inputs, "input", where,
                 error) ||
      !sameSpecs(model.withRole(Role::Param), manifest.params, "parameter",
                 where, error) ||
      !sameSpecs(model.withRole(Role::State), manifest.state, "state tensor",
                 where, error))
    return false;
  for (const auto &[key, value] : model.meta) {
    // A hyperparameter's compiled value is only its default; which value
    // the run takes is the trainer's to say (chooseHparams).
    bool isHparam = false;
    for (const TensorSpec *spec : model.withRole(Role::Hparam))
      isHparam |= spec->name == key;
    if (isHparam)
      continue;
    std::string saved = metaOf(manifest.meta, key);
    if (saved != value && isMainRank())
      distrt_log(DISTRT_LOG_WARN, "%s has meta %s '%s', the model '%s'",
                 where.c_str(), key.c_str(), saved.c_str(), value.c_str());
  }
  return true;
}

} // namespace distrt::model
