//===- Json.h - A small, strict JSON parser and writer helpers --*- C++ -*-===//
//
// JSON (RFC 8259) for file headers, parsed by nlohmann/json strictly (no
// comments, no trailing commas, no NaN, no leading zeros, UTF-8 checked,
// \uXXXX escapes with surrogate pairs; a leading byte-order mark is skipped)
// into a tree that keeps object members in order and keeps duplicate keys so
// callers can report them. Numbers keep their text, so 64-bit integers read
// back exactly.
//
//===----------------------------------------------------------------------===//

#ifndef DISTRT_CORE_JSON_H
#define DISTRT_CORE_JSON_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace distrt::json {

struct Member;

/// One JSON value.
struct Value {
  enum Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Null;
  bool boolean = false;
  /// The decoded string (String) or the literal as written (Number).
  std::string text;
  std::vector<Value> items;    // Array
  std::vector<Member> members; // Object, in order, duplicates kept

  /// The first member named `key` of an object; nullptr if none (or not an
  /// object).
  const Value *find(std::string_view key) const;
  /// A Number written as a non-negative integer that fits in 64 bits.
  bool asUint64(uint64_t &out) const;
};

struct Member {
  std::string key;
  Value value;
};

/// Limits that keep a hostile document from exhausting the stack or memory.
struct Limits {
  unsigned maxDepth = 64;
  uint64_t maxValues = 1u << 24;
};

/// Parses `text` as one JSON value surrounded by optional whitespace. On
/// failure returns false and sets `error` to what is wrong and, for a
/// syntax error, where: the byte that ends the token it stopped at
/// ("syntax error while parsing object separator - unexpected string
/// literal; expected ':' at byte 12").
bool parse(std::string_view text, Value &out, std::string &error,
           const Limits &limits = Limits());

/// `text` as a JSON string literal, quotes included; UTF-8 is kept as it
/// is, and bytes that are not UTF-8 become U+FFFD (check with isValidUtf8
/// first where that matters).
std::string quote(std::string_view text);

/// Whether `text` is well-formed UTF-8 (no overlongs, no surrogates).
bool isValidUtf8(std::string_view text);

/// The name of a kind, for messages ("an object").
const char *kindName(Value::Kind kind);

} // namespace distrt::json

#endif // DISTRT_CORE_JSON_H
