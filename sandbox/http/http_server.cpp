#include "sandbox/http/http_server.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <thread>

#include "gpupool/json/yaml.h"
#include "gpupool/tls/certificates.h"
#include "sandbox/http/body_limits.h"
#include "sandbox/http/connection_pool.h"
#include "sandbox/http/discovery.h"
#include "sandbox/http/http_util.h"
#include "sandbox/http/table.h"
#include "sandbox/nodes/dcgm_exporter.h"
#include "sandbox/store/object_meta.h"

namespace gpupool::sandbox {
namespace {

// Connections served at once; each holds a thread (and a file descriptor).
constexpr size_t kMaxConnections = 10000;

std::optional<ResourcePath> ParseResourcePath(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 1;
  while (start < path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    if (slash > start) parts.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  ResourcePath result;
  size_t at = 0;
  if (parts.size() >= 3 && parts[0] == "api") {
    result.version = parts[1];
    at = 2;
  } else if (parts.size() >= 4 && parts[0] == "apis") {
    result.group = parts[1];
    result.version = parts[2];
    at = 3;
  } else {
    return std::nullopt;
  }
  std::vector<std::string> rest(parts.begin() + static_cast<long>(at), parts.end());
  // "namespaces/{ns}/{plural}..." addresses namespaced resources; "namespaces",
  // "namespaces/{name}" and "namespaces/{name}/status" the namespaces themselves.
  if (rest.size() >= 3 && rest[0] == "namespaces" && rest[2] != "status" && rest[2] != "finalize") {
    result.ns = rest[1];
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (rest.empty() || rest.size() > 3) return std::nullopt;
  result.plural = rest[0];
  if (rest.size() > 1) result.name = rest[1];
  if (rest.size() > 2) result.subresource = rest[2];
  return result;
}

std::string VerbOf(const httplib::Request& request, const ResourcePath& path) {
  if (request.method == "GET") {
    if (!path.name.empty()) return "get";
    return BoolParam(request, "watch") ? "watch" : "list";
  }
  if (request.method == "POST") return "create";
  if (request.method == "PUT") return "update";
  if (request.method == "PATCH") return "patch";
  if (request.method == "DELETE") return path.name.empty() ? "deletecollection" : "delete";
  return request.method;
}

// httplib listens with a backlog of 5: a burst of connections (a client
// starting many watches) overflows it and the kernel drops SYNs, each
// costing the client a one-second retransmit. Listening again on the same
// socket widens the backlog (Linux allows it); httplib does not expose the
// socket, so it is found by its port.
void WidenListenBacklog(int port) {
  for (int fd = 0; fd < 1024; ++fd) {
    int listening = 0;
    socklen_t length = sizeof listening;
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) != 0 || !listening) {
      continue;
    }
    sockaddr_in address{};
    socklen_t address_length = sizeof address;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &address_length) == 0 &&
        address.sin_family == AF_INET && ntohs(address.sin_port) == port) {
      listen(fd, SOMAXCONN);
      return;
    }
  }
}

}  // namespace

HttpServer::HttpServer(Cluster& cluster, const Options& options, const tls::TlsMaterial* tls,
                       const std::string& token)
    : cluster_(cluster), options_(options), token_(token), faults_(options.faults) {
  authorizer_ = std::make_unique<Authorizer>(cluster);
  if (options.authorize_service_accounts) tokens_ = std::make_unique<ServiceAccountTokens>(cluster);
  if (tls) {
    server_ = std::make_unique<httplib::SSLServer>(tls->cert, tls->key);
  } else {
    server_ = std::make_unique<httplib::Server>();
  }
  // --threads workers stay ready; more start while every one is busy (each
  // open watch holds one), so long watches never starve other clients.
  const size_t threads = static_cast<size_t>(options.threads);
  server_->new_task_queue = [threads] {
    return new ConnectionPool(threads, std::max(threads, kMaxConnections));
  };
  server_->set_keep_alive_max_count(100000);
  server_->set_keep_alive_timeout(10);  // idle keep-alive connections hold a worker thread
  server_->set_read_timeout(30);
  server_->set_write_timeout(30);
  server_->set_tcp_nodelay(true);
  // Above the API's own 3 MiB limit, so that bodies between the two get a
  // Status (413) from the handler rather than a bare connection close.
  server_->set_payload_max_length(16 << 20);
  auto handler = [this](const httplib::Request& request, httplib::Response& response) {
    Handle(request, response);
  };
  server_->Get(".*", handler);
  server_->Post(".*", handler);
  server_->Put(".*", handler);
  server_->Patch(".*", handler);
  server_->Delete(".*", handler);
}

HttpServer::~HttpServer() = default;

int HttpServer::Bind() {
  if (options_.port == 0) {
    port_ = server_->bind_to_any_port("127.0.0.1");
  } else if (server_->bind_to_port("127.0.0.1", options_.port)) {
    port_ = options_.port;
  } else {
    port_ = -1;
  }
  if (port_ <= 0) {
    throw std::runtime_error("cannot listen on 127.0.0.1:" + std::to_string(options_.port));
  }
  WidenListenBacklog(port_);
  return port_;
}

void HttpServer::Serve() { server_->listen_after_bind(); }

void HttpServer::Stop() {
  stopping_ = true;
  cluster_.store().NotifyAll();
  server_->stop();
}

void HttpServer::Handle(const httplib::Request& request, httplib::Response& response) {
  try {
    // A node's exporter answers without credentials; so does the simulated one.
    if (request.method == "GET" && request.path == kDcgmMetricsPath) {
      response.set_content(DcgmExposition(cluster_), "text/plain; version=0.0.4; charset=utf-8");
      return;
    }
    const auto account = Authenticate(request);
    if (HandleNonResource(request, response)) return;
    auto path = ParseResourcePath(request.path);
    if (!path) throw ApiError(404, "NotFound", "the server could not find the requested resource");
    const std::string verb = VerbOf(request, *path);
    if (int latency = faults_.LatencyMs(verb); latency > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(latency));
    }
    if (auto error = faults_.ErrorFor(verb)) throw *error;
    if (AnswerSelfReview(request, response, account, *path)) return;
    if (AuthorizeAndIssue(request, response, account, *path, verb)) return;
    if (AnswerReview(request, response, *path)) return;
    HandleResource(request, response, *path, account);
    if (faults_.DropConnection()) WriteTruncated(response);
  } catch (const ApiError& error) {
    WriteError(response, error);
  } catch (const nlohmann::json::exception& error) {
    // Mostly a field of the wrong type (a number where a string belongs).
    WriteError(response, BadRequest("the object cannot be decoded: " + ParserMessage(error)));
  } catch (const json::YamlError& error) {
    WriteError(response, BadRequest("malformed YAML: " + ParserMessage(error)));
  } catch (const std::exception& error) {
    WriteError(response, InternalError(error.what()));
  }
}

bool HttpServer::HandleNonResource(const httplib::Request& request, httplib::Response& response) {
  const std::string& path = request.path;
  if (request.method != "GET") return false;
  Json body;
  auto& registry = cluster_.resources();
  if (path == "/version") {
    body = VersionInfo();
  } else if (path == "/healthz" || path == "/livez" || path == "/readyz") {
    response.set_content("ok", "text/plain");
    return true;
  } else if (path == "/api") {
    body = CoreApiVersions("127.0.0.1:" + std::to_string(port_));
  } else if (path == "/apis") {
    body = ApiGroupList(registry);
  } else if (path == "/openapi/v3") {
    body = OpenApiIndex(registry);
  } else if (path.rfind("/openapi/v3/", 0) == 0) {
    auto document = OpenApiDocument(registry, path.substr(12));
    if (!document) throw ApiError(404, "NotFound", "no OpenAPI document for " + path);
    response.set_content(*document, "application/json");
    return true;
  } else if (path == "/openapi/v2") {
    if (request.get_header_value("Accept").find("protobuf") == std::string::npos) {
      body = OpenApiV2Json();
    } else {
      response.set_content(OpenApiV2Protobuf(),
                           "application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
      return true;
    }
  } else if (path.rfind("/openapi/", 0) == 0) {
    throw ApiError(404, "NotFound", "no OpenAPI document at " + path);
  } else if (path == "/api/v1") {
    body = ApiResourceList(registry, "", "v1");
  } else if (path.rfind("/apis/", 0) == 0 && std::count(path.begin(), path.end(), '/') <= 3) {
    const std::string rest = path.substr(6);
    const size_t slash = rest.find('/');
    body = slash == std::string::npos
               ? ApiGroup(registry, rest)
               : ApiResourceList(registry, rest.substr(0, slash), rest.substr(slash + 1));
    if (body.is_null())
      throw ApiError(404, "NotFound", "the server could not find the requested resource");
  } else {
    return false;
  }
  response.set_content(body.dump(), "application/json");
  return true;
}

}  // namespace gpupool::sandbox
