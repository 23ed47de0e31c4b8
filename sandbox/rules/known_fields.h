// The fields a real server's typed decoder knows for each built-in kind the
// sandbox serves, so that unknown fields are refused with
// fieldValidation=Strict (kubectl's default) and dropped with a warning
// otherwise, as a real server does.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sandbox/rules/resource_type.h"
#include "sandbox/rules/write_options.h"

namespace gpupool::sandbox {

using Json = nlohmann::json;

// Removes the fields of `object` that its built-in kind does not have and
// returns their paths ("spec.containers[0].imagee"). Custom resources and
// kinds without a known shape are left alone.
std::vector<std::string> DropUnknownFields(const ResourceType& resource, Json& object);

// Unknown fields of built-in kinds: 400 with fieldValidation=Strict, else
// dropped with a warning (none with Ignore), as the real decoder does.
void CheckKnownFields(const ResourceType& resource, Json& object, WriteOptions& options);

// The warnings for unknown fields a write dropped: one per path, none with
// fieldValidation=Ignore. Built-in kinds and custom resources alike.
void WarnOfUnknownFields(const std::vector<std::string>& unknown, WriteOptions& options);

// Unknown fields under fieldValidation=Strict: 400 for a create, update or
// apply (`bad_request` leads the message); for a merge or JSON patch, 422
// naming "patch" and showing the patched object, as the real patcher says it.
[[noreturn]] void ThrowStrictDecodingError(const std::vector<std::string>& unknown,
                                           const std::string& bad_request, const Json& object,
                                           const WriteOptions& options);

}  // namespace gpupool::sandbox
