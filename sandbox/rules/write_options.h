// How a write was asked for and what it tells its caller back: the request's
// options (dry run, field validation, field manager, force), the warnings
// and stored form it answers with, and the requester's webhooks.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sandbox/store/store.h"

namespace gpupool::sandbox {

using Json = nlohmann::json;
struct WebhookInputs;

struct WriteOptions {
  bool dry_run = false;
  bool strict_fields = false;         // fieldValidation=Strict: unknown fields are errors
  bool ignore_fields = false;         // fieldValidation=Ignore: dropped without a warning
  bool via_events_api = false;        // an Event written through events.k8s.io
  bool json_patch = false;            // a merge or JSON patch: strict errors name "patch"
  std::string field_manager;          // who the write's managedFields entry names
  bool force = false;                 // an apply takes over conflicting fields
  bool applied = false;               // the object carries the managedFields an apply made
  std::vector<std::string> warnings;  // returned as Warning headers
  ObjectPtr stored;  // set by a create or update to what it stored: the answer, serialized
  // The requester as an AdmissionReview names it ({"username", "groups"}):
  // set by the HTTP front end. Null for the server's own writes (the
  // simulated controllers), which no admission webhook is called for.
  Json user_info;
  // An update's mutating webhooks, read under the store's lock before it.
  std::shared_ptr<const WebhookInputs> webhooks;
};

}  // namespace gpupool::sandbox
