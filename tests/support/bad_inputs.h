// Bad objects of each kind, each with the field path a user must fix and
// who refuses it: gpupool's validator always; the API server (sandbox and
// real) by the CRD's schema, its CEL rules or its own checks; or no one, when
// the server stores it and the controller flags it InvalidSpec.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <span>

namespace gpupool::api::testing {

using Json = nlohmann::json;

// Who else rejects the input: the CRD's OpenAPI schema, or only the CRD's CEL
// rules / the API server's metadata checks (which our schema validator skips),
// or no one: the server stores it, and the controller flags it InvalidSpec.
enum class AlsoRejectedBy { kSchema, kCelRule, kServerOnly, kNoOne };

struct BadInput {
  const char* name;
  Json (*base)();
  const char* patch;  // JSON Patch applied to the valid base object
  const char* path;
  const char* message;
  AlsoRejectedBy also;
};

std::ostream& operator<<(std::ostream& out, const BadInput& input);

std::span<const BadInput> BadInputs();
// The bad object: the base with the patch applied.
Json BadObject(const BadInput& input);

}  // namespace gpupool::api::testing
