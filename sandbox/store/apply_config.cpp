// The body of an apply request and the checks a real server makes on it
// before applying.
#include "gpupool/json/yaml.h"
#include "sandbox/api_error.h"
#include "sandbox/http/body_limits.h"
#include "sandbox/store/apply.h"

namespace gpupool::sandbox {
namespace {

// The real server's words for a document that is not an object.
std::string GoTypeName(const Json& value) {
  if (value.is_array()) return "array";
  if (value.is_string()) return "string";
  if (value.is_boolean()) return "bool";
  if (value.is_number()) return "number";
  return "null";
}

std::string StringField(const Json& object, const char* name) {
  const auto found = object.find(name);
  return found != object.end() && found->is_string() ? found->get<std::string>() : "";
}

bool LooksLikeJson(const std::string& body) {
  const size_t first = body.find_first_not_of(" \t\r\n");
  return first != std::string::npos && (body[first] == '{' || body[first] == '[');
}

Json DecodeYaml(const std::string& body) {
  if (LooksLikeJson(body)) {
    Json parsed = Json::parse(body, nullptr, false);
    if (!parsed.is_discarded()) return parsed;
  }
  try {
    const auto documents = json::YamlToJson(body, "apply patch");
    return documents.empty() ? Json::object() : documents.front();
  } catch (const json::YamlError& error) {
    throw BadRequest(std::string("error decoding YAML: ") + error.what());
  }
}

}  // namespace

Json ParseApplyConfig(const std::string& body) {
  CheckRequestBody(body);
  Json config = DecodeYaml(body);
  if (!config.is_object()) {
    throw BadRequest(
        "error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot "
        "unmarshal " +
        GoTypeName(config) + " into Go value of type map[string]interface {}");
  }
  const auto metadata = config.find("metadata");
  if (metadata != config.end() && !metadata->is_object()) {
    throw BadRequest("metadata must be an object");
  }
  if (metadata != config.end() && metadata->contains("managedFields") &&
      !(*metadata)["managedFields"].is_null()) {
    throw BadRequest("metadata.managedFields must be nil");
  }
  return config;
}

void CheckApplyTarget(const ResourceType& resource, const Json& config, const std::string& ns,
                      const std::string& name) {
  const std::string api_version = StringField(config, "apiVersion");
  if (api_version != resource.ApiVersion()) {
    throw BadRequest("Incorrect version specified in apply patch. Specified patch version: " +
                     api_version + ", expected: " + resource.ApiVersion());
  }
  const std::string kind = StringField(config, "kind");
  if (kind != resource.kind) {
    throw BadRequest(kind.empty() ? "Object 'Kind' is missing in the apply patch"
                                  : "the apply patch is for kind " + kind +
                                        " but the request is for " + resource.kind);
  }
  const auto metadata = config.find("metadata");
  const Json empty = Json::object();
  const Json& fields = metadata == config.end() ? empty : *metadata;
  const std::string object_name = StringField(fields, "name");
  if (object_name != name) {
    throw BadRequest("the name of the object (" + object_name +
                     ") does not match the name on the URL (" + name + ")");
  }
  const std::string object_ns = StringField(fields, "namespace");
  if (resource.namespaced && !object_ns.empty() && object_ns != ns) {
    throw BadRequest("the namespace of the object (" + object_ns +
                     ") does not match the namespace on the URL (" + ns + ")");
  }
}

}  // namespace gpupool::sandbox
