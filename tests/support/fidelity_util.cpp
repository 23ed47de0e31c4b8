#include "fidelity_util.h"

namespace gpupool::sandbox::testing {

Reply SendRaw(httplib::Client& client, const std::string& method, const std::string& path,
              const std::string& body, const std::string& content_type) {
  auto call = [&]() -> httplib::Result {
    if (method == "POST") return client.Post(path.c_str(), body, content_type.c_str());
    if (method == "PUT") return client.Put(path.c_str(), body, content_type.c_str());
    if (method == "PATCH") return client.Patch(path.c_str(), body, content_type.c_str());
    if (method == "DELETE") {
      return body.empty() ? client.Delete(path.c_str())
                          : client.Delete(path.c_str(), body, content_type.c_str());
    }
    return client.Get(path.c_str());
  };
  const httplib::Result result = call();
  Reply reply;
  if (!result) return reply;
  reply.status = result->status;
  reply.body = result->body;
  reply.headers = result->headers;
  reply.json = Json::parse(reply.body, nullptr, false);
  if (reply.json.is_discarded()) reply.json = nullptr;
  return reply;
}

Reply Send(httplib::Client& client, const std::string& method, const std::string& path,
           const Json& body, const std::string& content_type) {
  return SendRaw(client, method, path, body.is_null() ? "" : body.dump(), content_type);
}

Json ConfigMapJson(const std::string& name) {
  return {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}};
}

Json GpuPodJson(const std::string& name, const Json& container_extra) {
  Json container = {{"name", "main"},
                    {"image", "busybox"},
                    {"resources", {{"limits", {{"nvidia.com/gpu", 1}, {"cpu", "2000m"}}}}}};
  container.update(container_extra);
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}}},
          {"spec", {{"containers", {container}}}}};
}

std::vector<std::string> CauseFields(const Json& status) {
  std::vector<std::string> fields;
  if (!status.is_object() || !status.contains("details")) return fields;
  for (const auto& cause : status["details"].value("causes", Json::array())) {
    fields.push_back(cause.value("field", ""));
  }
  return fields;
}

std::vector<Json> ReadWatchEvents(httplib::Client& client, const std::string& path,
                                  const std::function<bool(const Json&)>& stop) {
  std::vector<Json> events;
  std::string buffer;
  client.Get(path.c_str(), [&](const char* data, size_t size) {
    buffer.append(data, size);
    size_t newline;
    while ((newline = buffer.find('\n')) != std::string::npos) {
      events.push_back(Json::parse(buffer.substr(0, newline)));
      buffer.erase(0, newline + 1);
      if (stop && stop(events.back())) return false;
    }
    return true;
  });
  return events;
}

}  // namespace gpupool::sandbox::testing
