#include "gpupool/json/dump.h"

#include <array>
#include <charconv>
#include <cmath>

namespace gpupool::json {
namespace {

using Json = nlohmann::json;

// Whether `byte` needs more than a copy: an escape, or (from 0x80) the UTF-8
// check that nlohmann's own serializer does.
bool Special(unsigned char byte) {
  return byte < 0x20 || byte == '"' || byte == '\\' || byte >= 0x80;
}

void AppendEscaped(const std::string& text, std::string& out) {
  for (unsigned char byte : text) {
    if (byte >= 0x80) {  // non-ASCII: nlohmann checks and writes the whole string
      out += Json(text).dump();
      return;
    }
  }
  out += '"';
  for (unsigned char byte : text) {
    switch (byte) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (byte < 0x20) {
          static const char kHex[] = "0123456789abcdef";
          out += "\\u00";
          out += kHex[byte >> 4];
          out += kHex[byte & 0xF];
        } else {
          out += static_cast<char>(byte);
        }
    }
  }
  out += '"';
}

void AppendString(const std::string& text, std::string& out) {
  for (unsigned char byte : text) {
    if (Special(byte)) return AppendEscaped(text, out);
  }
  out += '"';
  out += text;
  out += '"';
}

template <typename Integer>
void AppendInteger(Integer value, std::string& out) {
  std::array<char, 24> digits;
  const auto end = std::to_chars(digits.data(), digits.data() + digits.size(), value).ptr;
  out.append(digits.data(), end);
}

void AppendFloat(double value, std::string& out) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  std::array<char, 64> digits;
  const char* end = nlohmann::detail::to_chars(digits.data(), digits.data() + digits.size(), value);
  out.append(digits.data(), static_cast<std::size_t>(end - digits.data()));
}

}  // namespace

void DumpTo(const Json& value, std::string& out) {
  switch (value.type()) {
    case Json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [name, member] : value.get_ref<const Json::object_t&>()) {
        if (!first) out += ',';
        first = false;
        AppendString(name, out);
        out += ':';
        DumpTo(member, out);
      }
      out += '}';
      return;
    }
    case Json::value_t::array: {
      out += '[';
      bool first = true;
      for (const auto& item : value.get_ref<const Json::array_t&>()) {
        if (!first) out += ',';
        first = false;
        DumpTo(item, out);
      }
      out += ']';
      return;
    }
    case Json::value_t::string:
      return AppendString(value.get_ref<const std::string&>(), out);
    case Json::value_t::boolean:
      out += value.get<bool>() ? "true" : "false";
      return;
    case Json::value_t::number_integer:
      return AppendInteger(value.get<Json::number_integer_t>(), out);
    case Json::value_t::number_unsigned:
      return AppendInteger(value.get<Json::number_unsigned_t>(), out);
    case Json::value_t::number_float:
      return AppendFloat(value.get<Json::number_float_t>(), out);
    case Json::value_t::null:
      out += "null";
      return;
    case Json::value_t::binary:
    case Json::value_t::discarded:
      out += value.dump();
      return;
  }
}

std::string Dump(const Json& value) {
  std::string out;
  DumpTo(value, out);
  return out;
}

}  // namespace gpupool::json
