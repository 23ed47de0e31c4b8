#include "sandbox/http/protobuf.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <vector>

#include "sandbox/api_error.h"
#include "sandbox/http/protobuf_schema.h"
#include "sandbox/store/encoding.h"
#include "sandbox/store/object_meta.h"

namespace gpupool::sandbox {
namespace {

using protobuf::Field;
using protobuf::Kind;
using protobuf::Kinds;
using protobuf::Message;

bool IsProtoDefault(const Json& value) {
  return (value.is_string() && value.get_ref<const std::string&>().empty()) ||
         (value.is_number() && value == 0) || (value.is_boolean() && !value.get<bool>());
}

std::string KindsDecoded() {
  std::string listed;
  for (const auto& [kind, message] : Kinds()) listed += (listed.empty() ? "" : ", ") + kind;
  return listed;
}

[[noreturn]] void Malformed(const std::string& why) {
  throw BadRequest("the protobuf body is malformed: " + why);
}

class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  bool Done() const { return at_ >= data_.size(); }
  uint64_t Varint() {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (Done()) Malformed("truncated varint");
      const auto byte = static_cast<uint8_t>(data_[at_++]);
      value |= static_cast<uint64_t>(byte & 0x7F) << shift;
      if (!(byte & 0x80)) return value;
    }
    Malformed("varint too long");
  }
  std::string_view Bytes() {
    const uint64_t size = Varint();
    if (size > data_.size() - at_) Malformed("length beyond the body");
    auto bytes = data_.substr(at_, size);
    at_ += size;
    return bytes;
  }
  void Skip(int wire_type) {
    if (wire_type == 0)
      Varint();
    else if (wire_type == 2)
      Bytes();
    else if (wire_type == 1 || wire_type == 5)
      at_ += wire_type == 1 ? 8 : 4;
    else
      Malformed("unsupported wire type " + std::to_string(wire_type));
  }

 private:
  std::string_view data_;
  size_t at_ = 0;
};

Json DecodeMessage(std::string_view data, const Message& message);

Json DecodeTime(std::string_view data) {
  Reader reader(data);
  int64_t seconds = 0;
  while (!reader.Done()) {
    const uint64_t key = reader.Varint();
    if ((key >> 3) == 1 && (key & 7) == 0) {
      seconds = static_cast<int64_t>(reader.Varint());
    } else {
      reader.Skip(static_cast<int>(key & 7));
    }
  }
  // The zero time is what Go encodes for an unset one: absent, as JSON has it.
  if (seconds == 0) return "";
  return FormatTime(std::chrono::system_clock::time_point(std::chrono::seconds(seconds)));
}

std::pair<std::string, std::string> DecodeMapEntry(std::string_view data) {
  Reader reader(data);
  std::pair<std::string, std::string> entry;
  while (!reader.Done()) {
    const uint64_t key = reader.Varint();
    if ((key & 7) != 2) Malformed("map entries hold length-delimited keys and values");
    (key >> 3 == 1 ? entry.first : entry.second) = std::string(reader.Bytes());
  }
  return entry;
}

// intstr.IntOrString: type (0 int, 1 string), intVal, strVal.
Json DecodeIntOrString(std::string_view data) {
  Reader reader(data);
  int64_t type = 0, int_value = 0;
  std::string string_value;
  while (!reader.Done()) {
    const uint64_t key = reader.Varint();
    const int number = static_cast<int>(key >> 3), wire_type = static_cast<int>(key & 7);
    if (number == 1 && wire_type == 0) {
      type = static_cast<int64_t>(reader.Varint());
    } else if (number == 2 && wire_type == 0) {
      int_value = static_cast<int32_t>(reader.Varint());
    } else if (number == 3 && wire_type == 2) {
      string_value = std::string(reader.Bytes());
    } else {
      reader.Skip(wire_type);
    }
  }
  return type == 1 ? Json(string_value) : Json(int_value);
}

// resource.Quantity: its string form.
std::string DecodeQuantity(std::string_view data) {
  Reader reader(data);
  std::string text;
  while (!reader.Done()) {
    const uint64_t key = reader.Varint();
    if ((key >> 3) == 1 && (key & 7) == 2) {
      text = std::string(reader.Bytes());
    } else {
      reader.Skip(static_cast<int>(key & 7));
    }
  }
  return text;
}

Json DecodeValue(Reader& reader, int wire_type, const Field& field) {
  if (field.kind == Kind::kInt || field.kind == Kind::kBool) {
    if (wire_type != 0) Malformed(std::string("field ") + field.name + " is not a varint");
    const uint64_t value = reader.Varint();
    return field.kind == Kind::kBool ? Json(value != 0) : Json(static_cast<int64_t>(value));
  }
  if (wire_type != 2) Malformed(std::string("field ") + field.name + " is not length-delimited");
  const std::string_view bytes = reader.Bytes();
  switch (field.kind) {
    case Kind::kString:
      return std::string(bytes);
    case Kind::kBytes:
      return Base64Encode(std::string(bytes));
    case Kind::kTime:
      return DecodeTime(bytes);
    case Kind::kMessage:
      return DecodeMessage(bytes, *field.message);
    case Kind::kIntOrString:
      return DecodeIntOrString(bytes);
    default:
      return nullptr;
  }
}

Json DecodeMessage(std::string_view data, const Message& message) {
  Reader reader(data);
  Json object = Json::object();
  while (!reader.Done()) {
    const uint64_t key = reader.Varint();
    const int number = static_cast<int>(key >> 3), wire_type = static_cast<int>(key & 7);
    const Field* field = nullptr;
    for (const auto& candidate : message.fields) {
      if (candidate.number == number) field = &candidate;
    }
    if (!field && message.partial_of) {
      throw ApiError(415, "UnsupportedMediaType",
                     "protobuf field " + std::to_string(number) + " of " + message.partial_of +
                         " is not decoded by the sandbox; send JSON instead");
    } else if (!field) {
      reader.Skip(wire_type);
    } else if (field->kind == Kind::kStringMap || field->kind == Kind::kBytesMap ||
               field->kind == Kind::kQuantityMap) {
      if (wire_type != 2) Malformed(std::string("map ") + field->name + " is not length-delimited");
      auto [map_key, value] = DecodeMapEntry(reader.Bytes());
      Json& entry = object[field->name][map_key];
      if (field->kind == Kind::kBytesMap) {
        entry = Base64Encode(value);
      } else if (field->kind == Kind::kQuantityMap) {
        entry = DecodeQuantity(value);
      } else {
        entry = value;
      }
    } else if (field->repeated) {
      object[field->name].push_back(DecodeValue(reader, wire_type, *field));
    } else {
      Json value = DecodeValue(reader, wire_type, *field);
      if (message.omits_zero && !field->zero_kept && IsProtoDefault(value)) {
        object.erase(field->name);
      } else {
        object[field->name] = std::move(value);
      }
    }
  }
  return object;
}

}  // namespace

Json DecodeProtobuf(const std::string& body) {
  static const std::string kMagic("k8s\0", 4);
  if (body.compare(0, 4, kMagic) != 0) Malformed("missing the k8s protobuf envelope");
  Reader reader(std::string_view(body).substr(4));
  std::string api_version, kind;
  std::string_view raw;
  while (!reader.Done()) {
    const uint64_t key = reader.Varint();
    if ((key >> 3) == 1 && (key & 7) == 2) {
      Reader type_meta(reader.Bytes());
      while (!type_meta.Done()) {
        const uint64_t type_key = type_meta.Varint();
        (type_key >> 3 == 1 ? api_version : kind) = std::string(type_meta.Bytes());
      }
    } else if ((key >> 3) == 2 && (key & 7) == 2) {
      raw = reader.Bytes();
    } else {
      reader.Skip(static_cast<int>(key & 7));
    }
  }
  auto message = Kinds().find(kind);
  if (message == Kinds().end()) {
    throw ApiError(415, "UnsupportedMediaType",
                   "protobuf bodies of kind \"" + kind + "\" are not decoded by the sandbox (" +
                       KindsDecoded() + " are); send JSON instead");
  }
  Json object = DecodeMessage(raw, *message->second);
  object["apiVersion"] = api_version;
  object["kind"] = kind;
  return object;
}

}  // namespace gpupool::sandbox
