//===- Json.cpp - A small, strict JSON parser -----------------------------===//

#include "Json.h"

#include <charconv>
#include <cstdio>

namespace distrt::json {

namespace {

class Parser {
public:
  Parser(std::string_view text, const Limits &limits)
      : text(text), limits(limits) {}

  bool parseDocument(Value &out) {
    skipSpace();
    if (!parseValue(out, 0))
      return false;
    skipSpace();
    if (at != text.size())
      return failAt("unexpected text after the JSON value");
    return true;
  }

  std::string error;

private:
  std::string_view text;
  const Limits &limits;
  size_t at = 0;
  uint64_t values = 0;

  bool failAt(const std::string &what) {
    error = what + " at byte " + std::to_string(at);
    return false;
  }

  void skipSpace() {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t' ||
                                text[at] == '\n' || text[at] == '\r'))
      ++at;
  }

  bool literal(std::string_view word) {
    if (text.substr(at, word.size()) != word)
      return false;
    at += word.size();
    return true;
  }

  bool parseValue(Value &out, unsigned depth) {
    if (++values > limits.maxValues)
      return failAt("more than " + std::to_string(limits.maxValues) +
                    " values");
    if (at == text.size())
      return failAt("unexpected end of the text");
    char ch = text[at];
    if (ch == '{' || ch == '[') {
      if (depth + 1 > limits.maxDepth)
        return failAt("nesting deeper than " + std::to_string(limits.maxDepth));
      return ch == '{' ? parseObject(out, depth + 1)
                       : parseArray(out, depth + 1);
    }
    if (ch == '"') {
      out.kind = Value::String;
      return parseString(out.text);
    }
    if (ch == '-' || (ch >= '0' && ch <= '9'))
      return parseNumber(out);
    if (literal("true") || literal("false")) {
      out.kind = Value::Bool;
      out.boolean = ch == 't';
      return true;
    }
    if (literal("null")) {
      out.kind = Value::Null;
      return true;
    }
    return failAt("expected a JSON value");
  }

  bool parseObject(Value &out, unsigned depth) {
    out.kind = Value::Object;
    ++at; // '{'
    skipSpace();
    if (at < text.size() && text[at] == '}') {
      ++at;
      return true;
    }
    while (true) {
      skipSpace();
      if (at == text.size() || text[at] != '"')
        return failAt("expected a string key");
      Member member;
      if (!parseString(member.key))
        return false;
      skipSpace();
      if (at == text.size() || text[at] != ':')
        return failAt("expected ':'");
      ++at;
      skipSpace();
      if (!parseValue(member.value, depth))
        return false;
      out.members.push_back(std::move(member));
      skipSpace();
      if (at < text.size() && text[at] == ',') {
        ++at;
        continue;
      }
      if (at < text.size() && text[at] == '}') {
        ++at;
        return true;
      }
      return failAt("expected ',' or '}'");
    }
  }

  bool parseArray(Value &out, unsigned depth) {
    out.kind = Value::Array;
    ++at; // '['
    skipSpace();
    if (at < text.size() && text[at] == ']') {
      ++at;
      return true;
    }
    while (true) {
      skipSpace();
      out.items.emplace_back();
      if (!parseValue(out.items.back(), depth))
        return false;
      skipSpace();
      if (at < text.size() && text[at] == ',') {
        ++at;
        continue;
      }
      if (at < text.size() && text[at] == ']') {
        ++at;
        return true;
      }
      return failAt("expected ',' or ']'");
    }
  }

  bool digits() {
    size_t start = at;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9')
      ++at;
    return at > start;
  }

  bool parseNumber(Value &out) {
    size_t start = at;
    if (text[at] == '-')
      ++at;
    if (at < text.size() && text[at] == '0') {
      ++at;
      if (at < text.size() && text[at] >= '0' && text[at] <= '9')
        return failAt("leading zero in a number");
    } else if (!digits()) {
      return failAt("expected a digit");
    }
    if (at < text.size() && text[at] == '.') {
      ++at;
      if (!digits())
        return failAt("expected a digit after '.'");
    }
    if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
      ++at;
      if (at < text.size() && (text[at] == '+' || text[at] == '-'))
        ++at;
      if (!digits())
        return failAt("expected a digit in the exponent");
    }
    out.kind = Value::Number;
    out.text = std::string(text.substr(start, at - start));
    return true;
  }

  bool hex4(uint32_t &code) {
    if (text.size() - at < 4)
      return failAt("truncated \\u escape");
    code = 0;
    for (int i = 0; i < 4; ++i) {
      char ch = text[at++];
      uint32_t digit;
      if (ch >= '0' && ch <= '9')
        digit = ch - '0';
      else if (ch >= 'a' && ch <= 'f')
        digit = ch - 'a' + 10;
      else if (ch >= 'A' && ch <= 'F')
        digit = ch - 'A' + 10;
      else {
        --at;
        return failAt("bad hex digit in a \\u escape");
      }
      code = code * 16 + digit;
    }
    return true;
  }

  static void appendUtf8(std::string &out, uint32_t code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | code >> 6);
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | code >> 12);
      out += static_cast<char>(0x80 | (code >> 6 & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | code >> 18);
      out += static_cast<char>(0x80 | (code >> 12 & 0x3F));
      out += static_cast<char>(0x80 | (code >> 6 & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  bool parseEscape(std::string &out) {
    if (at == text.size())
      return failAt("unterminated string");
    char ch = text[at++];
    switch (ch) {
    case '"':
    case '\\':
    case '/':
      out += ch;
      return true;
    case 'b':
      out += '\b';
      return true;
    case 'f':
      out += '\f';
      return true;
    case 'n':
      out += '\n';
      return true;
    case 'r':
      out += '\r';
      return true;
    case 't':
      out += '\t';
      return true;
    case 'u':
      break;
    default:
      --at;
      return failAt(std::string("bad escape '\\") + ch + "'");
    }
    uint32_t code = 0;
    if (!hex4(code))
      return false;
    if (code >= 0xDC00 && code <= 0xDFFF)
      return failAt("unpaired low surrogate in a \\u escape");
    if (code >= 0xD800 && code <= 0xDBFF) {
      uint32_t low = 0;
      if (text.substr(at, 2) != "\\u")
        return failAt("unpaired high surrogate in a \\u escape");
      at += 2;
      if (!hex4(low))
        return false;
      if (low < 0xDC00 || low > 0xDFFF)
        return failAt("unpaired high surrogate in a \\u escape");
      code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
    }
    appendUtf8(out, code);
    return true;
  }

  bool parseString(std::string &out) {
    ++at; // '"'
    while (true) {
      if (at == text.size())
        return failAt("unterminated string");
      unsigned char ch = static_cast<unsigned char>(text[at]);
      if (ch == '"') {
        ++at;
        break;
      }
      if (ch < 0x20)
        return failAt("control character in a string");
      if (ch == '\\') {
        ++at;
        if (!parseEscape(out))
          return false;
        continue;
      }
      // Copy a run of plain bytes at once; check it is UTF-8 below.
      size_t run = at;
      while (at < text.size() && text[at] != '"' && text[at] != '\\' &&
             static_cast<unsigned char>(text[at]) >= 0x20)
        ++at;
      std::string_view bytes = text.substr(run, at - run);
      if (!isValidUtf8(bytes)) {
        at = run;
        return failAt("invalid UTF-8 in a string");
      }
      out.append(bytes);
    }
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
  Parser parser(text, limits);
  if (parser.parseDocument(out))
    return true;
  error = parser.error;
  return false;
}

std::string quote(std::string_view text) {
  std::string out = "\"";
  for (char ch : text) {
    unsigned char byte = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (byte < 0x20) {
      char escape[8];
      std::snprintf(escape, sizeof(escape), "\\u%04x", byte);
      out += escape;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

bool isValidUtf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    unsigned char lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) {
      ++i;
      continue;
    }
    size_t length;
    uint32_t code = 0;
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
      code = lead & 0x1F;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      code = lead & 0x0F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      code = lead & 0x07;
    } else {
      return false; // a continuation byte, an overlong lead, or above U+10FFFF
    }
    if (text.size() - i < length)
      return false;
    for (size_t k = 1; k < length; ++k) {
      unsigned char next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80)
        return false;
      code = code << 6 | (next & 0x3F);
    }
    if ((length == 3 && code < 0x800) || (length == 4 && code < 0x10000) ||
        code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF))
      return false;
    i += length;
  }
  return true;
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
