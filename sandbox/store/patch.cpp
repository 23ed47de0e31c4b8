#include "sandbox/store/patch.h"

#include <algorithm>

#include "sandbox/api_error.h"
#include "sandbox/http/body_limits.h"
#include "sandbox/store/field_shapes.h"

namespace gpupool::sandbox {
namespace {

// Primitive lists with patchStrategy "merge": union instead of replace.
bool IsMergedPrimitiveList(const std::string& field) { return field == "finalizers"; }

Json MergeList(const std::string& field, const Json& target, const Json& patch);

Json MergeMap(const Json& target, const Json& patch) {
  if (!patch.is_object()) return patch;
  if (patch.contains("$patch")) {
    const std::string directive =
        patch["$patch"].is_string() ? patch["$patch"].get<std::string>() : "";
    if (directive == "replace") {
      Json replaced = patch;
      replaced.erase("$patch");
      return replaced;
    }
    if (directive == "delete") return nullptr;
    throw BadRequest("strategic merge patch: unknown $patch directive \"" + directive + "\"");
  }
  Json result = target.is_object() ? target : Json::object();
  for (const auto& [key, value] : patch.items()) {
    if (key.rfind("$setElementOrder/", 0) == 0 || key == "$retainKeys") continue;
    if (key.rfind("$deleteFromPrimitiveList/", 0) == 0) {
      const std::string list = key.substr(25);
      if (result.contains(list) && result[list].is_array() && value.is_array()) {
        auto& items = result[list];
        for (const auto& gone : value) {
          items.erase(std::remove(items.begin(), items.end(), gone), items.end());
        }
      }
      continue;
    }
    if (value.is_null()) {
      result.erase(key);
    } else if (value.is_object()) {
      Json merged = MergeMap(result.value(key, Json()), value);
      if (merged.is_null()) {
        result.erase(key);
      } else {
        result[key] = std::move(merged);
      }
    } else if (value.is_array()) {
      result[key] = MergeList(key, result.value(key, Json()), value);
    } else {
      result[key] = value;
    }
  }
  if (patch.contains("$retainKeys") && patch["$retainKeys"].is_array()) {
    const auto& keep = patch["$retainKeys"];
    for (auto it = result.begin(); it != result.end();) {
      it = std::find(keep.begin(), keep.end(), it.key()) == keep.end() ? result.erase(it) : ++it;
    }
  }
  return result;
}

Json MergeList(const std::string& field, const Json& target, const Json& patch) {
  if (IsMergedPrimitiveList(field) && target.is_array()) {
    Json result = target;
    for (const auto& item : patch) {
      if (std::find(result.begin(), result.end(), item) == result.end()) result.push_back(item);
    }
    return result;
  }
  const char* merge_key = patch.empty() ? nullptr : ListMergeKey(field, patch.front());
  if (!merge_key || !target.is_array()) {
    Json result = Json::array();
    for (const auto& item : patch) {
      if (!(item.is_object() && item.contains("$patch"))) result.push_back(item);
    }
    return result;
  }
  Json result = target;
  for (const auto& item : patch) {
    if (!item.is_object() || !item.contains(merge_key)) {
      throw BadRequest("strategic merge patch: an item of list \"" + field +
                       "\" lacks its merge key \"" + merge_key + "\"");
    }
    auto existing = std::find_if(result.begin(), result.end(), [&](const Json& current) {
      return current.is_object() && current.value(merge_key, Json()) == item[merge_key];
    });
    const bool remove = item.value("$patch", "") == "delete";
    if (existing == result.end()) {
      if (!remove) result.push_back(MergeMap(Json::object(), item));
    } else if (remove) {
      result.erase(existing);
    } else {
      *existing = MergeMap(*existing, item);
    }
  }
  return result;
}

Json ParseBody(const std::string& body) {
  CheckRequestBody(body);
  return ParseJsonBody(body, "the patch body");
}

}  // namespace

const std::vector<std::string>& PatchMediaTypes(bool custom_resource) {
  static const std::vector<std::string> kBuiltin = {
      "application/json-patch+json", "application/merge-patch+json",
      "application/strategic-merge-patch+json", "application/apply-patch+yaml"};
  static const std::vector<std::string> kCustom = {"application/json-patch+json",
                                                   "application/merge-patch+json",
                                                   "application/apply-patch+yaml"};
  return custom_resource ? kCustom : kBuiltin;
}

PatchType ParsePatchType(const std::string& content_type, bool custom_resource) {
  const std::string type = content_type.substr(0, content_type.find(';'));
  // A type no resource takes is refused before the resource is looked at,
  // with the real server's terse message; one this resource does not take
  // (a strategic merge of a custom resource) lists what it does.
  const auto& known = PatchMediaTypes(false);
  if (std::find(known.begin(), known.end(), type) == known.end()) {
    throw ApiError(415, "UnsupportedMediaType", "415: Unsupported Media Type", Json::object());
  }
  const auto& served = PatchMediaTypes(custom_resource);
  if (std::find(served.begin(), served.end(), type) == served.end())
    throw UnsupportedMediaType(served);
  if (type == "application/merge-patch+json") return PatchType::kMerge;
  if (type == "application/json-patch+json") return PatchType::kJson;
  if (type == "application/strategic-merge-patch+json") return PatchType::kStrategic;
  return PatchType::kApply;
}

Json StrategicMerge(const Json& target, const Json& patch) {
  if (!patch.is_object()) throw BadRequest("a strategic merge patch must be a JSON object");
  Json merged = MergeMap(target, patch);
  return merged.is_null() ? Json::object() : merged;
}

Json ApplyPatch(PatchType type, Json target, const std::string& patch_body) {
  const Json patch = ParseBody(patch_body);
  switch (type) {
    case PatchType::kMerge: {
      if (!patch.is_object()) throw BadRequest("a merge patch must be a JSON object");
      target.merge_patch(patch);
      return target;
    }
    case PatchType::kJson:
      if (!patch.is_array()) throw BadRequest("a JSON patch must be an array of operations");
      try {
        return target.patch(patch);
      } catch (const Json::exception& error) {
        throw ApiError(422, "Invalid", "the JSON patch failed: " + ParserMessage(error));
      }
    case PatchType::kStrategic:
      return StrategicMerge(target, patch);
    case PatchType::kApply:
      break;
  }
  throw std::logic_error("an apply patch is applied by ServerSideApply, not ApplyPatch");
}

}  // namespace gpupool::sandbox
