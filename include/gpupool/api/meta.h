// Object metadata and status conditions shared by every kind we read or write.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpupool/json/reader.h"

namespace gpupool::api {

using Json = nlohmann::json;

inline constexpr char kGroup[] = "gpupool.dev";
inline constexpr char kVersion[] = "v1alpha1";
inline constexpr char kApiVersion[] = "gpupool.dev/v1alpha1";

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
};

// Whether a decoded object keeps the JSON it was read from (its `raw`), to
// write back the fields gpupool does not read.
enum class RawJson { kKeep, kDrop };

// The metadata fields gpupool reads. Anything else stays in the object's raw
// JSON and is written back untouched.
struct ObjectMeta {
  std::string name;
  std::string namespace_;
  std::string uid;
  std::string resource_version;
  int64_t generation = 0;
  std::string creation_timestamp;
  std::optional<std::string> deletion_timestamp;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::vector<OwnerReference> owner_references;
  std::vector<std::string> finalizers;
};

ObjectMeta ReadObjectMeta(json::Reader& parent, json::Presence name_presence);
// Writes the typed fields over `metadata` (which keeps the fields we do not model).
void WriteObjectMeta(const ObjectMeta& meta, Json& metadata);

// metav1.Condition.
struct Condition {
  std::string type;
  std::string status;  // "True", "False" or "Unknown"
  std::string reason;
  std::string message;
  std::string last_transition_time;
  int64_t observed_generation = 0;

  bool operator==(const Condition&) const = default;
};

std::vector<Condition> ReadConditions(json::Reader& parent);
Json ConditionsToJson(const std::vector<Condition>& conditions);
const Condition* FindCondition(const std::vector<Condition>& conditions, const std::string& type);

// The GPU amounts a status reports for one project in one queue.
struct GpuUsage {
  json::Quantity guaranteed, allocated, over_quota, pending;
};

// Reads the amounts of a status list item (absent amounts are 0).
GpuUsage ReadGpuUsage(json::Reader& item);
// Writes them into `item` as guaranteed, allocated, overQuota and pending.
void WriteGpuUsage(const GpuUsage& usage, Json& item);

// Sets `object[key]` to `value`, or erases the key when `value` is empty.
template <typename T>
void SetOrErase(Json& object, const char* key, const std::optional<T>& value) {
  if (value) {
    object[key] = *value;
  } else {
    object.erase(key);
  }
}

// `typed` written over `raw`: the keys in `known` are gpupool's to set or erase,
// every other key of `raw` is kept as it was.
Json Overlay(const Json& raw, const Json& typed, std::initializer_list<const char*> known);

// Sets object[key] to `value`, erasing the key when `value` is an empty object.
void SetOrEraseObject(Json& object, const char* key, Json value);

// Checks that the object's apiVersion and kind are the expected ones.
void ExpectTypeMeta(json::Reader& reader, const std::string& api_version, const std::string& kind);

}  // namespace gpupool::api
