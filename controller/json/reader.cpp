#include "gpupool/json/reader.h"

#include <cstdlib>
#include <limits>

namespace gpupool::json {

const Json* Member(const Json* object, std::string_view key) {
  if (!object || !object->is_object()) return nullptr;
  const auto found = object->find(key);
  return found != object->end() ? &*found : nullptr;
}

std::string TypeName(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return "boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "integer";
    case Json::value_t::number_float:
      return "number";
    case Json::value_t::string:
      return "string";
    case Json::value_t::array:
      return "array";
    case Json::value_t::object:
      return "object";
    default:
      return "unknown";
  }
}

std::optional<Quantity> QuantityFromJson(const Json& value, std::string* error) {
  if (value.is_string()) {
    auto milli = ParseMilli(value.get_ref<const std::string&>(), error);
    if (!milli) return std::nullopt;
    return Quantity{*milli, value};
  }
  if (value.is_number_integer()) {
    constexpr int64_t kMaxUnits = std::numeric_limits<int64_t>::max() / 1000;
    const bool too_large =
        value.is_number_unsigned()
            ? value.get<uint64_t>() > static_cast<uint64_t>(kMaxUnits)
            : value.get<int64_t>() > kMaxUnits || value.get<int64_t>() < -kMaxUnits;
    if (too_large) {
      *error = "is too large";
      return std::nullopt;
    }
    return Quantity{value.get<int64_t>() * 1000, value};
  }
  if (value.is_number_float()) {
    // As the CRD schema (int-or-string) does: a float cannot carry a fraction exactly.
    *error = "must be an integer or a string; write fractions quoted, as \"0.5\"";
    return std::nullopt;
  }
  *error = "must be a quantity (integer or string), got " + TypeName(value);
  return std::nullopt;
}

Reader::Reader(const Json& object, std::string path, FieldErrors& errors)
    : object_(object), root_path_(std::move(path)), errors_(errors) {
  CheckIsObject();
}

Reader::Reader(const Json& object, const Reader& parent, std::string_view key)
    : object_(object), parent_(&parent), key_(key), errors_(parent.errors_) {
  CheckIsObject();
}

Reader::Reader(const Json& object, const Reader& parent, std::string_view key, size_t index)
    : object_(object), parent_(&parent), key_(key), index_(index), errors_(parent.errors_) {
  CheckIsObject();
}

void Reader::CheckIsObject() const {
  if (!object_.is_object()) {
    errors_.push_back({path(), "must be an object, got " + TypeName(object_)});
  }
}

std::string Reader::path() const {
  if (!parent_) return root_path_;
  std::string field = parent_->PathOf(key_);
  return index_ == kNoIndex ? field : Child(field, index_);
}

bool Reader::Has(std::string_view key) const {
  return object_.is_object() && object_.contains(key) && !object_.at(key).is_null();
}

void Reader::Error(std::string_view key, std::string message) const {
  errors_.push_back({PathOf(key), std::move(message)});
}

void Reader::TypeError(std::string_view key, std::string_view expected, const Json& got) const {
  Error(key, "must be " + std::string(expected) + ", got " + TypeName(got));
}

const Json* Reader::Field(std::string_view key, Presence presence) {
  if (Has(key)) return &object_.at(key);
  if (presence == Presence::kRequired && object_.is_object()) Error(key, "is required");
  return nullptr;
}

std::optional<std::string> Reader::String(std::string_view key, Presence presence) {
  const Json* field = Field(key, presence);
  if (!field) return std::nullopt;
  if (!field->is_string()) {
    TypeError(key, "a string", *field);
    return std::nullopt;
  }
  return field->get<std::string>();
}

std::optional<int64_t> Reader::Int(std::string_view key, Presence presence) {
  const Json* field = Field(key, presence);
  if (!field) return std::nullopt;
  if (field->is_number_unsigned() &&
      field->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    Error(key, "is too large");
    return std::nullopt;
  }
  if (!field->is_number_integer()) {
    TypeError(key, "an integer", *field);
    return std::nullopt;
  }
  return field->get<int64_t>();
}

std::optional<int32_t> Reader::Int32(std::string_view key, Presence presence) {
  auto value = Int(key, presence);
  if (!value) return std::nullopt;
  if (*value < std::numeric_limits<int32_t>::min() ||
      *value > std::numeric_limits<int32_t>::max()) {
    Error(key, "must fit in a 32-bit integer");
    return std::nullopt;
  }
  return static_cast<int32_t>(*value);
}

std::optional<bool> Reader::Bool(std::string_view key, Presence presence) {
  const Json* field = Field(key, presence);
  if (!field) return std::nullopt;
  if (!field->is_boolean()) {
    TypeError(key, "a boolean", *field);
    return std::nullopt;
  }
  return field->get<bool>();
}

std::optional<Quantity> Reader::QuantityField(std::string_view key, Presence presence) {
  const Json* field = Field(key, presence);
  if (!field) return std::nullopt;
  std::string error;
  auto quantity = QuantityFromJson(*field, &error);
  if (!quantity) Error(key, error);
  return quantity;
}

std::map<std::string, std::string> Reader::StringMap(std::string_view key) {
  std::map<std::string, std::string> result;
  const Json* field = Object(key);
  if (!field) return result;
  for (const auto& [name, value] : field->items()) {
    if (value.is_string()) {
      result[name] = value.get<std::string>();
    } else {
      errors_.push_back({Child(PathOf(key), name), "must be a string, got " + TypeName(value)});
    }
  }
  return result;
}

std::vector<std::string> Reader::StringList(std::string_view key, Presence presence) {
  std::vector<std::string> result;
  const Json* field = Array(key, presence);
  if (!field) return result;
  for (size_t i = 0; i < field->size(); ++i) {
    const Json& item = (*field)[i];
    if (item.is_string()) {
      result.push_back(item.get<std::string>());
    } else {
      errors_.push_back({Child(PathOf(key), i), "must be a string, got " + TypeName(item)});
    }
  }
  return result;
}

const Json* Reader::Object(std::string_view key, Presence presence) {
  const Json* field = Field(key, presence);
  if (field && !field->is_object()) {
    TypeError(key, "an object", *field);
    return nullptr;
  }
  return field;
}

const Json* Reader::Array(std::string_view key, Presence presence) {
  const Json* field = Field(key, presence);
  if (field && !field->is_array()) {
    TypeError(key, "an array", *field);
    return nullptr;
  }
  return field;
}

}  // namespace gpupool::json
