// Typed, error-collecting reads of JSON object fields. A wrong type or a
// missing required field becomes a FieldError with the field's full path;
// reading never throws and never stops at the first problem.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpupool/json/field_error.h"
#include "gpupool/json/quantity.h"

namespace gpupool::json {

using Json = nlohmann::json;

enum class Presence { kOptional, kRequired };

// Paths are built only when an error is reported: a reader knows its parent and
// its key, so reading a valid object allocates no path strings.
class Reader {
 public:
  // A reader for a whole object whose fields' paths start at `path`.
  // `object` must outlive the reader. A non-object `object` is reported once.
  Reader(const Json& object, std::string path, FieldErrors& errors);
  // A reader for `parent`'s field `key` (or its item `index`). The parent and
  // the key must outlive this reader.
  Reader(const Json& object, const Reader& parent, std::string_view key);
  Reader(const Json& object, const Reader& parent, std::string_view key, size_t index);

  std::string path() const;
  std::string PathOf(std::string_view key) const { return Child(path(), key); }
  FieldErrors& errors() const { return errors_; }
  bool Has(std::string_view key) const;

  std::optional<std::string> String(std::string_view key, Presence = Presence::kOptional);
  std::optional<int64_t> Int(std::string_view key, Presence = Presence::kOptional);
  std::optional<int32_t> Int32(std::string_view key, Presence = Presence::kOptional);
  std::optional<bool> Bool(std::string_view key, Presence = Presence::kOptional);
  std::optional<Quantity> QuantityField(std::string_view key, Presence = Presence::kOptional);
  std::map<std::string, std::string> StringMap(std::string_view key);
  std::vector<std::string> StringList(std::string_view key, Presence = Presence::kOptional);
  // The field if it is an object (nullptr when absent or wrong type).
  const Json* Object(std::string_view key, Presence = Presence::kOptional);
  // The field if it is an array (nullptr when absent or wrong type).
  const Json* Array(std::string_view key, Presence = Presence::kOptional);

  // Calls `read(item)` with a reader for each element of the array field `key`.
  template <typename ReadItem>
  void ForEachItem(std::string_view key, ReadItem read, Presence presence = Presence::kOptional) {
    const Json* list = Array(key, presence);
    if (!list) return;
    for (size_t i = 0; i < list->size(); ++i) {
      Reader item((*list)[i], *this, key, i);
      read(item);
    }
  }

  void Error(std::string_view key, std::string message) const;

 private:
  const Json* Field(std::string_view key, Presence presence);
  void TypeError(std::string_view key, std::string_view expected, const Json& got) const;

  void CheckIsObject() const;

  static constexpr size_t kNoIndex = static_cast<size_t>(-1);
  const Json& object_;
  const Reader* parent_ = nullptr;
  std::string_view key_;
  size_t index_ = kNoIndex;
  std::string root_path_;
  FieldErrors& errors_;
};

// Reads a quantity from a JSON string or number; nullopt + message otherwise.
std::optional<Quantity> QuantityFromJson(const Json& value, std::string* error);

// The JSON type name used in error messages ("string", "integer", ...).
std::string TypeName(const Json& value);

// `object`'s member `key`, read in place; nullptr when `object` is null, not an
// object or lacks it.
const Json* Member(const Json* object, std::string_view key);

}  // namespace gpupool::json
