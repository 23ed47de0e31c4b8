// Server-side apply: a PATCH with Content-Type application/apply-patch+yaml
// sends a partial object, the fields its manager wants to own. They are
// merged into the object (keyed lists by key, see field_shapes.h), fields the
// manager applied before and no longer sends are removed unless another
// manager owns them, and changing a field another manager owns to another
// value is a conflict (409) unless forced, which moves the field to the
// applier.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sandbox/rules/resource_type.h"

namespace gpupool::sandbox {

using Json = nlohmann::json;

struct ApplyRequest {
  std::string manager;
  bool force = false;
  std::string subresource;  // "" or "status"
};

// The object of an apply body (YAML or JSON); 400 when it is malformed, not
// one object, or carries metadata.managedFields; 413 when it is too large.
Json ParseApplyConfig(const std::string& body);

// 400 unless the configuration names the resource's apiVersion and kind and
// the object of the URL.
void CheckApplyTarget(const ResourceType& resource, const Json& config, const std::string& ns,
                      const std::string& name);

// `config` applied to `live` (an empty object when there is none yet): the
// object to write, with its managedFields. Throws 409 Conflict naming each
// conflicting field and its manager unless `request.force`.
Json ServerSideApply(const ResourceType& resource, const Json& live, const Json& config,
                     const ApplyRequest& request);

}  // namespace gpupool::sandbox
