#include "sandbox/store/object_meta.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <random>

#include "sandbox/api_error.h"
#include "sandbox/store/events.h"
#include "sandbox/store/names.h"

namespace gpupool::sandbox {
namespace {

std::mt19937_64& Random() {
  static thread_local std::mt19937_64 engine(std::random_device{}());
  return engine;
}

}  // namespace

std::string NameInMetadata(const Json& object) { return object["metadata"].value("name", ""); }

const Json& MemberOr(const Json& object, const char* key, const Json& fallback) {
  return object.is_object() && object.contains(key) ? object[key] : fallback;
}

std::string Annotation(const Json& object, const char* key) {
  const Json annotations = object["metadata"].value("annotations", Json::object());
  const auto value = annotations.find(key);
  return value != annotations.end() && value->is_string() ? value->get<std::string>() : "";
}

std::string ObjectKey(const std::string& ns, const std::string& name) {
  return ns.empty() ? name : ns + "/" + name;
}

std::string StorageKey(const ResourceType& resource) {
  // events.k8s.io Events are a view of the core Events: one storage.
  if (IsEventsApiEvent(resource)) return "/events";
  return resource.group + "/" + resource.plural;
}

std::string NewUid() {
  std::uniform_int_distribution<int> digit(0, 15);
  std::string uid = "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx";
  const char* hex = "0123456789abcdef";
  for (char& c : uid) {
    if (c == 'x') c = hex[digit(Random())];
    if (c == 'y') c = hex[8 + digit(Random()) % 4];
  }
  return uid;
}

std::string RandomSuffix(size_t length) {
  // The alphabet of generateName suffixes: no vowels, no look-alike digits.
  const char* alphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::uniform_int_distribution<int> pick(0, 26);
  std::string suffix;
  for (size_t i = 0; i < length; ++i) suffix += alphabet[pick(Random())];
  return suffix;
}

std::string FormatTime(std::chrono::system_clock::time_point time) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

bool ParseTime(const std::string& text, std::chrono::system_clock::time_point* time) {
  std::tm utc{};
  int year, month, day, hour, minute, second;
  if (std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%d", &year, &month, &day, &hour, &minute,
                  &second) != 6) {
    return false;
  }
  utc.tm_year = year - 1900;
  utc.tm_mon = month - 1;
  utc.tm_mday = day;
  utc.tm_hour = hour;
  utc.tm_min = minute;
  utc.tm_sec = second;
  *time = std::chrono::system_clock::from_time_t(timegm(&utc));
  return true;
}

std::string FormatMicroTime(std::chrono::system_clock::time_point time) {
  const std::string seconds = FormatTime(time);  // "...:SSZ"
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(time.time_since_epoch()).count() %
      1000000;
  char fraction[24];
  std::snprintf(fraction, sizeof fraction, ".%06lld", static_cast<long long>(micros));
  return seconds.substr(0, seconds.size() - 1) + fraction + "Z";
}

std::string NowString() { return FormatTime(std::chrono::system_clock::now()); }

namespace {

json::FieldErrors TooLong(const std::string& value, const std::string& path) {
  return {{path, "Invalid value: \"" + value + "\": must be no more than 63 characters"}};
}

}  // namespace

json::FieldErrors ValidateDnsLabel(const std::string& value, const std::string& path) {
  if (IsDns1123Label(value)) return {};
  if (value.size() > 63) return TooLong(value, path);
  return {{path, "Invalid value: \"" + value +
                     "\": a lowercase RFC 1123 label must consist of lower case alphanumeric "
                     "characters or '-', and must start and end with an alphanumeric character"}};
}

json::FieldErrors ValidateObjectName(const std::string& name, const std::string& path,
                                     NameSyntax syntax) {
  if (name.empty()) return {{path, "Required value: name or generateName is required"}};
  if (syntax == NameSyntax::kLabel) return ValidateDnsLabel(name, path);
  if (syntax == NameSyntax::kDns1035Label && !IsDns1035Label(name)) {
    if (name.size() > 63) return TooLong(name, path);
    return {{path, "Invalid value: \"" + name +
                       "\": a DNS-1035 label must consist of lower case alphanumeric characters "
                       "or '-', start with an alphabetic character, and end with an alphanumeric "
                       "character"}};
  }
  if (IsDns1123Subdomain(name)) return {};
  return {{path, "Invalid value: \"" + name +
                     "\": a lowercase RFC 1123 subdomain must consist of lower case "
                     "alphanumeric characters, '-' or '.', and must start and end with an "
                     "alphanumeric character"}};
}

json::FieldErrors ValidateMetadataMaps(const Json& metadata) {
  json::FieldErrors errors;
  constexpr size_t kMaxAnnotationBytes = 256 * 1024;
  size_t annotation_bytes = 0;
  if (metadata.contains("annotations") && metadata["annotations"].is_object()) {
    for (const auto& [key, value] : metadata["annotations"].items()) {
      annotation_bytes += key.size() + (value.is_string() ? value.get<std::string>().size() : 0);
    }
  }
  if (annotation_bytes > kMaxAnnotationBytes) {
    errors.push_back({"metadata.annotations", "Too long: must have at most " +
                                                  std::to_string(kMaxAnnotationBytes) + " bytes"});
  }
  for (const char* field : {"labels", "annotations"}) {
    if (!metadata.contains(field)) continue;
    const auto& map = metadata[field];
    const std::string path = std::string("metadata.") + field;
    if (!map.is_object()) {
      errors.push_back({path, "must be a map of strings"});
      continue;
    }
    for (const auto& [key, value] : map.items()) {
      if (!IsQualifiedName(key))
        errors.push_back({path, "Invalid value: \"" + key + "\": invalid key"});
      if (!value.is_string()) {
        errors.push_back({path + "[" + key + "]", "must be a string"});
      } else if (std::string(field) == "labels" && !IsLabelValue(value.get<std::string>())) {
        errors.push_back({path, "Invalid value: \"" + value.get<std::string>() +
                                    "\": a valid label must be 63 characters or less and "
                                    "consist of alphanumerics, '-', '_' or '.'"});
      }
    }
  }
  return errors;
}

json::FieldErrors ValidateOwnerReferences(const Json& metadata) {
  if (!metadata.contains("ownerReferences")) return {};
  const Json& references = metadata["ownerReferences"];
  // The real server reports these on the list's path, without an index.
  const std::string path = "metadata.ownerReferences";
  if (!references.is_array()) return {{path, "Invalid value: must be a list"}};
  json::FieldErrors errors;
  std::vector<std::string> controllers;
  for (const auto& reference : references) {
    if (!reference.is_object()) {
      errors.push_back({path, "Invalid value: each owner reference must be an object"});
      continue;
    }
    const std::string api_version = reference.value("apiVersion", "");
    const bool has_version = !api_version.empty() && api_version.back() != '/';
    const std::pair<const char*, bool> required[] = {{"apiVersion", has_version},
                                                     {"kind", !reference.value("kind", "").empty()},
                                                     {"name", !reference.value("name", "").empty()},
                                                     {"uid", !reference.value("uid", "").empty()}};
    for (const auto& [field, present] : required) {
      if (present) continue;
      const std::string what = std::string(field) == "apiVersion" ? "version" : field;
      errors.push_back({path + "." + field, "Invalid value: \"" + reference.value(field, "") +
                                                "\": " + what + " must not be empty"});
    }
    if (reference.value("controller", false)) controllers.push_back(reference.value("name", ""));
  }
  if (controllers.size() > 1) {
    std::string names;
    for (const auto& name : controllers) names += (names.empty() ? "" : ", ") + name;
    errors.push_back({path,
                      "Invalid value: Only one reference can have Controller set to true. "
                      "Found \"true\" in references for " +
                          names});
  }
  return errors;
}

void FillCreateMetadata(Json& metadata, const std::string& kind, NameSyntax syntax) {
  if (metadata.value("name", "").empty() && !metadata.value("generateName", "").empty()) {
    metadata["name"] = metadata["generateName"].get<std::string>() + RandomSuffix(5);
  }
  const std::string name = metadata.value("name", "");
  json::FieldErrors errors = ValidateObjectName(name, "metadata.name", syntax);
  for (const auto& more : {ValidateMetadataMaps(metadata), ValidateOwnerReferences(metadata)}) {
    errors.insert(errors.end(), more.begin(), more.end());
  }
  if (!errors.empty()) throw Invalid(kind, name, errors);
  metadata["uid"] = NewUid();
  metadata["creationTimestamp"] = NowString();
  for (const char* field :
       {"deletionTimestamp", "deletionGracePeriodSeconds", "resourceVersion", "selfLink"}) {
    metadata.erase(field);
  }
}

json::FieldErrors ValidateFinalizersUpdate(const Json& old_metadata, const Json& metadata) {
  if (!old_metadata.contains("deletionTimestamp")) return {};
  const Json old_finalizers = old_metadata.value("finalizers", Json::array());
  std::string added;
  for (const auto& finalizer : metadata.value("finalizers", Json::array())) {
    if (std::find(old_finalizers.begin(), old_finalizers.end(), finalizer) != old_finalizers.end())
      continue;
    added += (added.empty() ? "" : ", ") + finalizer.dump();
  }
  if (added.empty()) return {};
  // The real server checks object metadata twice on an update (its generic
  // store and each kind's strategy), so this cause comes twice.
  const json::FieldError error{"metadata.finalizers",
                               "Forbidden: no new finalizers can be added if the object is being "
                               "deleted, found new finalizers []string{" +
                                   added + "}"};
  return {error, error};
}

}  // namespace gpupool::sandbox
