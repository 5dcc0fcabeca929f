//===- Json.cpp - JSON documents through nlohmann/json --------------------===//
//
// nlohmann/json (Debian's nlohmann-json3-dev, header only) does the JSON:
// its SAX parser checks the grammar (RFC 8259, strictly: no comments, no
// trailing commas, no NaN, no leading zeros, UTF-8 and \u escapes checked)
// and reports where it stopped; the handler below builds our tree, which
// keeps object members in order and duplicate keys (nlohmann's own json
// type would keep only one), keeps integers exact, and enforces the limits.
//
//===----------------------------------------------------------------------===//

#include "Json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <clocale>

namespace distrt::json {

namespace {

using nlohmann::json;

/// Builds a Value tree from nlohmann's SAX events.
class TreeBuilder : public nlohmann::json_sax<json> {
public:
  TreeBuilder(Value &root, const Limits &limits)
      : root(root), limits(limits) {}

  std::string error;

  bool null() override { return add(Value()); }
  bool boolean(bool b) override {
    Value v;
    v.kind = Value::Bool;
    v.boolean = b;
    return add(std::move(v));
  }
  bool number_integer(number_integer_t n) override {
    return number(std::to_string(n));
  }
  bool number_unsigned(number_unsigned_t n) override {
    return number(std::to_string(n));
  }
  bool number_float(number_float_t, const string_t &text) override {
    // nlohmann's lexer writes the locale's decimal point into the text.
    std::string literal = text;
    if (char point = *std::localeconv()->decimal_point; point != '.')
      std::replace(literal.begin(), literal.end(), point, '.');
    return number(std::move(literal));
  }
  bool string(string_t &s) override {
    Value v;
    v.kind = Value::String;
    v.text = std::move(s);
    return add(std::move(v));
  }
  bool binary(binary_t &) override { return fail("binary values"); }
  bool start_object(std::size_t) override { return open(Value::Object); }
  bool key(string_t &k) override {
    stack.back()->members.push_back(Member{std::move(k), Value()});
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(Value::Array); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t position, const std::string &,
                   const nlohmann::detail::exception &e) override {
    // nlohmann's message without its "[json.exception.parse_error.101] "
    // and "parse error at line 1, column 3: " (the byte says where).
    std::string what = e.what();
    if (size_t id = what.find("] "); what.rfind("[json.exception.", 0) == 0 &&
                                     id != std::string::npos)
      what = what.substr(id + 2);
    if (size_t colon = what.find(": ");
        what.rfind("parse error", 0) == 0 && colon != std::string::npos)
      what = what.substr(colon + 2);
    // "; last read: '...'" echoes the input's bytes, which may be anything.
    if (size_t echo = what.find("; last read: "); echo != std::string::npos) {
      size_t expected = what.find("; expected ", echo);
      what.erase(echo, expected == std::string::npos ? std::string::npos
                                                     : expected - echo);
    }
    // A lexer error has no "; expected" after the echo; bytes of the input
    // that remain are not printed.
    for (char &ch : what)
      if (static_cast<unsigned char>(ch) >= 0x80 ||
          static_cast<unsigned char>(ch) < 0x20)
        ch = '?';
    // nlohmann's position is just past the token it stopped at.
    error = what + " at byte " + std::to_string(position > 0 ? position - 1 : 0);
    return false;
  }

private:
  Value &root;
  const Limits &limits;
  std::vector<Value *> stack;
  uint64_t values = 0;

  bool fail(const std::string &what) {
    error = what;
    return false;
  }

  /// Where the next value goes: the root, an array's next item or the
  /// object's last key's value.
  Value *slot() {
    if (stack.empty())
      return &root;
    Value *top = stack.back();
    if (top->kind == Value::Array) {
      top->items.emplace_back();
      return &top->items.back();
    }
    return &top->members.back().value;
  }

  bool count() {
    if (++values > limits.maxValues)
      return fail("more than " + std::to_string(limits.maxValues) + " values");
    return true;
  }

  bool add(Value v) {
    if (!count())
      return false;
    *slot() = std::move(v);
    return true;
  }

  bool number(std::string text) {
    Value v;
    v.kind = Value::Number;
    v.text = std::move(text);
    return add(std::move(v));
  }

  bool open(Value::Kind kind) {
    if (!count())
      return false;
    if (stack.size() >= limits.maxDepth)
      return fail("nested deeper than " + std::to_string(limits.maxDepth));
    Value *v = slot();
    v->kind = kind;
    stack.push_back(v);
    return true;
  }

  bool close() {
    stack.pop_back();
    return true;
  }
};

} // namespace

const Value *Value::find(std::string_view key) const {
  for (const Member &member : members)
    if (member.key == key)
      return &member.value;
  return nullptr;
}

bool Value::asUint64(uint64_t &out) const {
  if (kind != Number || text.empty())
    return false;
  for (char ch : text)
    if (ch < '0' || ch > '9')
      return false;
  const char *end = text.data() + text.size();
  auto result = std::from_chars(text.data(), end, out);
  return result.ec == std::errc() && result.ptr == end;
}

bool parse(std::string_view text, Value &out, std::string &error,
           const Limits &limits) {
  out = Value();
  TreeBuilder builder(out, limits);
  if (json::sax_parse(text.begin(), text.end(), &builder,
                      json::input_format_t::json, /*strict=*/true,
                      /*ignore_comments=*/false))
    return true;
  error = builder.error;
  return false;
}

std::string quote(std::string_view text) {
  // Bytes that are not UTF-8 become U+FFFD: the result is always JSON.
  return json(std::string(text))
      .dump(-1, ' ', /*ensure_ascii=*/false, json::error_handler_t::replace);
}

bool isValidUtf8(std::string_view text) {
  // nlohmann's strict dump refuses ill-formed UTF-8 (overlongs and
  // surrogates included).
  try {
    json(std::string(text)).dump();
    return true;
  } catch (const json::type_error &) {
    return false;
  }
}

const char *kindName(Value::Kind kind) {
  switch (kind) {
  case Value::Null:
    return "null";
  case Value::Bool:
    return "a boolean";
  case Value::Number:
    return "a number";
  case Value::String:
    return "a string";
  case Value::Array:
    return "an array";
  case Value::Object:
    return "an object";
  }
  return "a value";
}

} // namespace distrt::json
