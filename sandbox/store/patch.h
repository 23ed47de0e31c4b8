// PATCH bodies: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and the
// strategic merge patch of built-in kinds, for the list merge keys in use.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gpupool::sandbox {

using Json = nlohmann::json;

enum class PatchType { kMerge, kJson, kStrategic, kApply };

// The patch media types a resource accepts: custom resources take no
// strategic merge patch.
const std::vector<std::string>& PatchMediaTypes(bool custom_resource);

// From a Content-Type; throws ApiError 415, listing PatchMediaTypes, for
// anything else.
PatchType ParsePatchType(const std::string& content_type, bool custom_resource = false);

// Applies `patch` to `target`; throws ApiError 400/422 when the patch is
// malformed or a JSON patch operation fails (a failed "test" included).
// `strategic` is only allowed for built-in kinds: the caller decides. An
// apply patch is not applied here but by ServerSideApply (apply.h). A merge
// patch edits `target` in place: pass it moved when it is not needed after.
Json ApplyPatch(PatchType type, Json target, const std::string& patch_body);

// Strategic merge of `patch` into `target` (exposed for tests).
Json StrategicMerge(const Json& target, const Json& patch);

}  // namespace gpupool::sandbox
