#include "fake_api_server.h"

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <sstream>

namespace gpupool::kube::testing {
namespace {

std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, separator);)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

std::string KeyOf(const Json& object);

}  // namespace

// Equality, inequality and existence terms: "a=b,c!=d,e,!f".
bool SelectorMatches(const Json& object, const std::string& selector) {
  Json labels = object["metadata"].value("labels", Json::object());
  for (const auto& term : Split(selector, ',')) {
    std::size_t bang = term.find("!=");
    std::size_t eq = term.find('=');
    if (bang != std::string::npos) {
      std::string key = term.substr(0, bang);
      if (labels.contains(key) && labels[key] == term.substr(bang + 2)) return false;
    } else if (eq != std::string::npos) {
      std::string key = term.substr(0, eq);
      std::string value = term.substr(term[eq + 1] == '=' ? eq + 2 : eq + 1);
      if (!labels.contains(key) || labels[key] != value) return false;
    } else if (term[0] == '!') {
      if (labels.contains(term.substr(1))) return false;
    } else if (!labels.contains(term)) {
      return false;
    }
  }
  return true;
}

namespace {

std::string KeyOf(const Json& object) {
  return object["metadata"].value("namespace", "") + "/" + object["metadata"].value("name", "");
}

std::string ClientCommonName(const httplib::Request& req) {
  if (!req.ssl) return "";
  X509* cert = SSL_get_peer_certificate(req.ssl);
  if (!cert) return "";
  char name[256] = "";
  X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, name, sizeof(name));
  X509_free(cert);
  return name;
}

}  // namespace

Json MakeStatus(int code, const std::string& reason, const std::string& message) {
  return {{"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", Json::object()},
          {"status", "Failure"}, {"message", message}, {"reason", reason},
          {"code", code}};
}

FakeApiServer::FakeApiServer(std::optional<FakeTls> tls) : tls_(tls.has_value()) {
  if (tls) {
    server_ = std::make_unique<httplib::SSLServer>(
        tls->cert_file.c_str(), tls->key_file.c_str(),
        tls->client_ca_file.empty() ? nullptr : tls->client_ca_file.c_str());
  } else {
    server_ = std::make_unique<httplib::Server>();
  }
  server_->new_task_queue = [] { return new httplib::ThreadPool(24); };
  server_->set_keep_alive_max_count(100000);
  // Without TCP_NODELAY each small response waits for a delayed ACK (~40 ms).
  server_->set_tcp_nodelay(true);
  auto handler = [this](const httplib::Request& req, httplib::Response& res) { Handle(req, res); };
  server_->Get(".*", handler);
  server_->Post(".*", handler);
  server_->Put(".*", handler);
  server_->Patch(".*", handler);
  server_->Delete(".*", handler);
  port_ = server_->bind_to_any_port("127.0.0.1");
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  while (!server_->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

FakeApiServer::~FakeApiServer() {
  stopping_ = true;
  changed_.notify_all();
  server_->stop();
  thread_.join();
}

std::string FakeApiServer::url() const {
  return std::string(tls_ ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_);
}

void FakeApiServer::FailNext(int count, int code, std::optional<int> retry_after) {
  std::lock_guard lock(mutex_);
  for (int i = 0; i < count; ++i) failures_.emplace_back(code, retry_after);
}

void FakeApiServer::ClearFailures() {
  std::lock_guard lock(mutex_);
  failures_.clear();
}

void FakeApiServer::DropResponsesAfterApplying(int count) {
  std::lock_guard lock(mutex_);
  drops_left_ += count;
}

void FakeApiServer::SetResponseDelay(std::chrono::milliseconds delay) {
  std::lock_guard lock(mutex_);
  response_delay_ = delay;
}

void FakeApiServer::Delay() {
  std::unique_lock lock(mutex_);
  if (response_delay_.count() > 0)
    changed_.wait_for(lock, response_delay_, [this] { return stopping_.load(); });
}

bool FakeApiServer::TakeDrop() {
  std::lock_guard lock(mutex_);
  if (drops_left_ == 0) return false;
  --drops_left_;
  return true;
}

void FakeApiServer::RequireToken(const std::string& token) {
  std::lock_guard lock(mutex_);
  token_ = token;
}

void FakeApiServer::CutWatches() {
  std::lock_guard lock(mutex_);
  ++cut_generation_;
  changed_.notify_all();
}

void FakeApiServer::Compact() {
  std::lock_guard lock(mutex_);
  compacted_rv_ = rv_;
  log_.clear();
  changed_.notify_all();
}

void FakeApiServer::CutWatchesRandomly(int max_events_per_stream, uint32_t seed) {
  std::lock_guard lock(mutex_);
  random_cut_max_ = max_events_per_stream;
  random_state_ = seed ? seed : 1;
}

int64_t FakeApiServer::resource_version() {
  std::lock_guard lock(mutex_);
  return rv_;
}

std::vector<RecordedRequest> FakeApiServer::Requests() {
  std::lock_guard lock(mutex_);
  return requests_;
}

void FakeApiServer::ClearRequests() {
  std::lock_guard lock(mutex_);
  requests_.clear();
}

std::map<std::string, Json> FakeApiServer::Objects(const std::string& resource_path) {
  std::lock_guard lock(mutex_);
  return store_[resource_path];
}

Json FakeApiServer::Put(const std::string& resource_path, const Json& object) {
  std::lock_guard lock(mutex_);
  bool exists = store_[resource_path].count(KeyOf(object)) > 0;
  return StoreLocked(resource_path, object, exists ? "MODIFIED" : "ADDED");
}

Json FakeApiServer::PutAndCompact(const std::string& resource_path, const Json& object) {
  std::lock_guard lock(mutex_);
  bool exists = store_[resource_path].count(KeyOf(object)) > 0;
  Json stored = StoreLocked(resource_path, object, exists ? "MODIFIED" : "ADDED");
  compacted_rv_ = rv_;
  log_.clear();
  return stored;
}

bool FakeApiServer::Remove(const std::string& resource_path, const std::string& ns,
                           const std::string& name) {
  std::lock_guard lock(mutex_);
  return RemoveLocked(resource_path, ns + "/" + name);
}

bool FakeApiServer::RemoveLocked(const std::string& resource_path, const std::string& key) {
  auto& objects = store_[resource_path];
  auto it = objects.find(key);
  if (it == objects.end()) return false;
  Json object = it->second;
  objects.erase(it);
  object["metadata"]["resourceVersion"] = std::to_string(++rv_);
  log_.push_back({rv_, "DELETED", resource_path, object});
  changed_.notify_all();
  return true;
}

Json FakeApiServer::StoreLocked(const std::string& resource_path, Json object,
                                const std::string& type) {
  object["metadata"]["resourceVersion"] = std::to_string(++rv_);
  if (!object["metadata"].contains("uid")) object["metadata"]["uid"] = "uid-" + std::to_string(rv_);
  if (!object["metadata"].contains("creationTimestamp"))
    object["metadata"]["creationTimestamp"] = "2026-01-01T00:00:00Z";
  store_[resource_path][KeyOf(object)] = object;
  log_.push_back({rv_, type, resource_path, object});
  changed_.notify_all();
  return object;
}

void FakeApiServer::Record(const httplib::Request& req) {
  RecordedRequest record{req.method,
                         req.path,
                         {},
                         req.get_header_value("Content-Type"),
                         req.get_header_value("Authorization"),
                         req.get_header_value("Host"),
                         req.body,
                         req.remote_port,
                         ClientCommonName(req)};
  for (const auto& [key, value] : req.params) record.query[key] = value;
  std::lock_guard lock(mutex_);
  requests_.push_back(std::move(record));
}

bool FakeApiServer::Authorized(const httplib::Request& req, httplib::Response& res) {
  std::lock_guard lock(mutex_);
  if (token_.empty() || req.get_header_value("Authorization") == "Bearer " + token_) return true;
  res.status = 401;
  res.set_content(MakeStatus(401, "Unauthorized", "Unauthorized").dump(), "application/json");
  return false;
}

bool FakeApiServer::Discovery(const std::string& path, httplib::Response& res) {
  std::vector<std::string> parts = Split(path, '/');
  bool core = parts.size() == 2 && parts[0] == "api";
  bool group = parts.size() == 3 && parts[0] == "apis";
  if (!core && !group) return false;
  if (group && parts[1] == "events.k8s.io" && !serve_events_v1_) {
    res.status = 404;
    res.set_content(
        MakeStatus(404, "NotFound", "the server could not find the requested resource").dump(),
        "application/json");
    return true;
  }
  Json list = {{"kind", "APIResourceList"},
               {"groupVersion", core ? "v1" : parts[1] + "/" + parts[2]},
               {"resources", Json::array()}};
  std::vector<std::string> names =
      core ? std::vector<std::string>{"pods", "nodes", "events", "namespaces"}
           : std::vector<std::string>{"events", "leases"};
  for (const auto& name : names) list["resources"].push_back({{"name", name}});
  res.set_content(list.dump(), "application/json");
  return true;
}

}  // namespace gpupool::kube::testing
