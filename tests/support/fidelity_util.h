// Small helpers for tests that send raw requests to a sandbox and look at
// the status code and the JSON body of the answer.
#pragma once

#include <string>
#include <vector>

#include "sandbox_process.h"

namespace gpupool::sandbox::testing {

struct Reply {
  int status = 0;  // 0 when the request failed at the connection level
  std::string body;
  Json json;  // the body parsed, or null when it is not JSON
  httplib::Headers headers;
};

// Sends `method` to `path` with `body` (none when null) as `content_type`.
Reply Send(httplib::Client& client, const std::string& method, const std::string& path,
           const Json& body = nullptr, const std::string& content_type = "application/json");
// The same with a raw body.
Reply SendRaw(httplib::Client& client, const std::string& method, const std::string& path,
              const std::string& body, const std::string& content_type = "application/json");

Json ConfigMapJson(const std::string& name);
// A pod whose one container has limits of a GPU and 2000m of CPU;
// `container_extra` is merged into the container.
Json GpuPodJson(const std::string& name, const Json& container_extra = Json::object());
// The `field` of each `details.causes[]` entry of a Status, in order.
std::vector<std::string> CauseFields(const Json& status);

// Reads watch events until `stop` accepts one or the stream ends.
std::vector<Json> ReadWatchEvents(httplib::Client& client, const std::string& path,
                                  const std::function<bool(const Json&)>& stop = nullptr);

}  // namespace gpupool::sandbox::testing
