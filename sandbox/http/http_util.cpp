#include "sandbox/http/http_util.h"

#include <algorithm>

#include "gpupool/json/yaml.h"
#include "sandbox/http/body_limits.h"
#include "sandbox/http/protobuf.h"
#include "sandbox/http/table.h"
#include "sandbox/store/events.h"

namespace gpupool::sandbox {
namespace {

// The real server validates dryRun with the options kind of the verb and
// answers 422 naming the only supported value.
ApiError DryRunUnsupported(const std::string& options_kind, const std::string& quoted_value) {
  return Invalid(
      options_kind + ".meta.k8s.io", "",
      {{"dryRun", "Unsupported value: " + quoted_value + ": supported values: \"All\""}});
}

bool DryRun(const httplib::Request& request, const std::string& options_kind) {
  if (!request.has_param("dryRun")) return false;
  for (size_t i = 0; i < request.get_param_value_count("dryRun"); ++i) {
    const std::string value = request.get_param_value("dryRun", i);
    if (value != "All") throw DryRunUnsupported(options_kind, Json(value).dump());
  }
  return true;
}

// The manager a write is recorded under: the fieldManager parameter
// (validated as a real server validates it), else the client's User-Agent
// up to its first "/", as "kubectl" for "kubectl/v1.30.0 (linux/amd64)".
std::string FieldManagerOf(const httplib::Request& request, const std::string& options_kind) {
  constexpr size_t kMaxLength = 128;
  if (!request.has_param("fieldManager")) {
    const std::string agent = request.get_header_value("User-Agent");
    return agent.substr(0, std::min(agent.find('/'), kMaxLength));
  }
  const std::string manager = request.get_param_value("fieldManager");
  const auto invalid = [&](const std::string& why) {
    return Invalid(options_kind + ".meta.k8s.io", "", {{"fieldManager", why}});
  };
  if (manager.size() > kMaxLength) {
    throw invalid("Too long: may not be more than " + std::to_string(kMaxLength) + " bytes");
  }
  for (size_t i = 0; i < manager.size(); ++i) {
    const auto c = static_cast<unsigned char>(manager[i]);
    if (c < 0x20 || c == 0x7f) {
      throw invalid("Invalid value: " + Json(manager).dump() + ": invalid character at position " +
                    std::to_string(i));
    }
  }
  return manager;
}

}  // namespace

void WriteJson(httplib::Response& response, int status, const std::string& body) {
  response.status = status;
  response.set_content(body, "application/json");
}

void WriteError(httplib::Response& response, const ApiError& error) {
  if (error.retry_after > 0) response.set_header("Retry-After", std::to_string(error.retry_after));
  WriteJson(response, error.code, StatusJson(error).dump());
}

void WriteTruncated(httplib::Response& response) {
  auto body = std::make_shared<std::string>(std::move(response.body));
  response.body.clear();
  response.headers.erase("Content-Type");
  response.set_chunked_content_provider(
      "application/json", [body](size_t, httplib::DataSink& sink) {
        sink.write(body->data(), body->size() / 2);
        return false;  // httplib then closes the connection without ending the body
      });
}

void AddWarnings(httplib::Response& response, const std::vector<std::string>& warnings) {
  for (const auto& warning : warnings) {
    std::string escaped;
    for (char c : warning) {
      if (c == '"' || c == '\\') escaped += '\\';
      escaped += c;
    }
    response.set_header("Warning", "299 - \"" + escaped + "\"");
  }
}

Json DecodeBody(const httplib::Request& request, bool protobuf_served) {
  std::string type = request.get_header_value("Content-Type");
  type = type.substr(0, type.find(';'));
  CheckRequestBody(request.body);
  if (type.empty() || type == "application/json") {
    return ParseJsonBody(request.body, "the request body");
  }
  if (type == "application/yaml") {
    auto documents = json::YamlToJson(request.body, "request body");
    if (documents.size() != 1) throw BadRequest("the YAML body must hold exactly one document");
    return documents[0];
  }
  constexpr char kProtobuf[] = "application/vnd.kubernetes.protobuf";
  if (!protobuf_served) throw UnsupportedMediaType({"application/json", "application/yaml"});
  if (type == kProtobuf) return DecodeProtobuf(request.body);
  throw UnsupportedMediaType({"application/json", "application/yaml", kProtobuf});
}

bool BoolParam(const httplib::Request& request, const std::string& name) {
  if (!request.has_param(name)) return false;
  const std::string value = request.get_param_value(name);
  for (const char* yes : {"1", "t", "T", "true", "True", "TRUE"}) {
    if (value == yes) return true;
  }
  for (const char* no : {"", "0", "f", "F", "false", "False", "FALSE"}) {
    if (value == no) return false;
  }
  throw BadRequest("invalid value for query parameter " + name + ": \"" + value +
                   "\" is not a boolean");
}

bool WantsTable(const httplib::Request& request) {
  return request.get_header_value("Accept").find("as=Table") != std::string::npos;
}

WriteOptions WriteOptionsOf(const httplib::Request& request) {
  WriteOptions options;
  const char* kind = request.method == "POST"  ? "CreateOptions"
                     : request.method == "PUT" ? "UpdateOptions"
                                               : "PatchOptions";
  options.dry_run = DryRun(request, kind);
  const std::string validation = request.get_param_value("fieldValidation");
  if (!validation.empty() && validation != "Strict" && validation != "Warn" &&
      validation != "Ignore") {
    throw BadRequest("invalid fieldValidation \"" + validation +
                     "\": must be one of Ignore, Warn or Strict");
  }
  options.field_manager = FieldManagerOf(request, kind);
  options.force = BoolParam(request, "force");
  options.strict_fields = validation == "Strict";
  options.ignore_fields = validation == "Ignore";
  return options;
}

void CheckPatchOptions(const httplib::Request& request, PatchType type) {
  if (type != PatchType::kApply && request.has_param("force")) {
    throw Invalid("PatchOptions.meta.k8s.io", "",
                  {{"force", "Forbidden: may not be specified for non-apply patch"}});
  }
  if (type == PatchType::kApply && request.get_param_value("fieldManager").empty()) {
    throw Invalid("PatchOptions.meta.k8s.io", "",
                  {{"fieldManager", "Required value: is required for apply patch"}});
  }
}

DeleteOptions DeleteOptionsOf(const httplib::Request& request) {
  DeleteOptions options;
  Json body = Json::object();
  if (!request.body.empty()) body = DecodeBody(request);
  if (!body.is_object()) throw BadRequest("the DeleteOptions body must be a JSON object");
  if (body.contains("gracePeriodSeconds") && body["gracePeriodSeconds"].is_number_integer()) {
    options.grace_seconds = body["gracePeriodSeconds"].get<int64_t>();
  }
  options.propagation = body.value("propagationPolicy", "");
  if (body.contains("orphanDependents") && body["orphanDependents"] == true) {
    options.propagation = "Orphan";
  }
  const Json preconditions = body.value("preconditions", Json::object());
  options.uid_precondition = preconditions.value("uid", "");
  options.rv_precondition = preconditions.value("resourceVersion", "");
  Json body_dry_run = body.value("dryRun", Json::array());
  if (!body_dry_run.is_array()) body_dry_run = Json::array({body_dry_run});
  for (const auto& value : body_dry_run) {
    if (value != "All") throw DryRunUnsupported("DeleteOptions", value.dump());
  }
  options.dry_run = !body_dry_run.empty() || DryRun(request, "DeleteOptions");
  if (request.has_param("gracePeriodSeconds")) {
    options.grace_seconds =
        ParseInteger(request.get_param_value("gracePeriodSeconds"), "gracePeriodSeconds");
  }
  if (request.has_param("propagationPolicy")) {
    options.propagation = request.get_param_value("propagationPolicy");
  }
  return options;
}

int64_t ParseInteger(const std::string& text, const std::string& name) {
  try {
    size_t used = 0;
    const long long value = std::stoll(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  throw BadRequest("invalid value for query parameter " + name + ": \"" + text +
                   "\" is not an integer");
}

ListOptions ListOptionsOf(const httplib::Request& request) {
  ListOptions options;
  options.label_selector = request.get_param_value("labelSelector");
  options.field_selector = request.get_param_value("fieldSelector");
  options.continue_token = request.get_param_value("continue");
  options.resource_version = request.get_param_value("resourceVersion");
  if (request.has_param("limit")) {
    // As the real server: a negative limit asks for no limit, as 0 does.
    const int64_t limit = ParseInteger(request.get_param_value("limit"), "limit");
    options.limit = limit < 0 ? 0 : static_cast<size_t>(limit);
  }
  return options;
}

std::string ListBody(const ResourceType& resource, const ListResult& result) {
  Json metadata = {{"resourceVersion", std::to_string(result.rv)}};
  if (!result.continue_token.empty()) metadata["continue"] = result.continue_token;
  std::string body = "{\"kind\":\"" + resource.kind + "List\",\"apiVersion\":\"" +
                     resource.ApiVersion() + "\",\"metadata\":" + metadata.dump() + ",\"items\":[";
  for (size_t i = 0; i < result.items.size(); ++i) {
    if (i) body += ',';
    body += PresentStored(resource, result.items[i]->json);
  }
  return body + "]}";
}

std::string TableBody(const ResourceType& resource, const ListResult& result,
                      const std::string& include_object) {
  Json metadata = {{"resourceVersion", std::to_string(result.rv)}};
  if (!result.continue_token.empty()) metadata["continue"] = result.continue_token;
  Json rows = Json::array();
  for (const auto& item : result.items) {
    rows.push_back(TableRow(resource, PresentObject(resource, item->Parsed()), include_object));
  }
  return Json{{"kind", "Table"},
              {"apiVersion", "meta.k8s.io/v1"},
              {"metadata", metadata},
              {"columnDefinitions", TableColumns(resource)},
              {"rows", rows}}
      .dump();
}

}  // namespace gpupool::sandbox
