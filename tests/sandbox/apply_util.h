// Helpers for the server-side apply tests: apply requests and the
// managedFields entries of the objects they return.
#pragma once

#include <string>

#include "fidelity_util.h"

namespace gpupool::sandbox::testing {

// PATCH `path` with an apply body (`query` holds fieldManager, force, ...).
Reply ApplyYaml(httplib::Client& client, const std::string& path, const std::string& yaml,
                const std::string& query = "fieldManager=tester");

// The managedFields entry of `manager` with `operation`, or null.
Json ManagedEntry(const Json& object, const std::string& manager,
                  const std::string& operation = "Apply");

// A ConfigMap apply body with `data` as a flow mapping ("{a: '1'}").
std::string ConfigMapYaml(const std::string& name, const std::string& data);

}  // namespace gpupool::sandbox::testing
