#include "sandbox/webhooks/webhook_client.h"

#include <httplib.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <memory>

namespace gpupool::sandbox {
namespace {

struct WebhookUrl {
  std::string host;
  int port = 443;
  std::string path = "/";
};

// https://host[:port][/path]; validation has made sure of the scheme.
WebhookUrl ParseWebhookUrl(const std::string& url) {
  WebhookUrl parsed;
  const auto start = url.find("://");
  const std::string rest = start == std::string::npos ? url : url.substr(start + 3);
  const auto slash = rest.find('/');
  const std::string authority = rest.substr(0, slash);
  if (slash != std::string::npos) parsed.path = rest.substr(slash);
  const auto colon = authority.rfind(':');
  const auto bracket = authority.rfind(']');
  if (colon != std::string::npos && (bracket == std::string::npos || colon > bracket)) {
    parsed.host = authority.substr(0, colon);
    parsed.port = std::atoi(authority.substr(colon + 1).c_str());
  } else {
    parsed.host = authority;
  }
  if (parsed.host.size() > 1 && parsed.host.front() == '[') {
    parsed.host = parsed.host.substr(1, parsed.host.size() - 2);
  }
  return parsed;
}

// The certificates of a PEM bundle as a store the client then owns; null
// when the bundle holds none.
X509_STORE* StoreOf(const std::string& pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
  if (!bio) return nullptr;
  X509_STORE* store = X509_STORE_new();
  int added = 0;
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    if (X509_STORE_add_cert(store, cert) == 1) ++added;
    X509_free(cert);
  }
  if (added > 0) return store;
  X509_STORE_free(store);
  return nullptr;
}

}  // namespace

WebhookReply PostToWebhook(const std::string& url, const std::string& ca_bundle_pem,
                           const std::string& body, int timeout_seconds) {
  const WebhookUrl target = ParseWebhookUrl(url);
  httplib::SSLClient client(target.host, target.port);
  if (!ca_bundle_pem.empty()) {
    X509_STORE* store = StoreOf(ca_bundle_pem);
    if (!store) return {false, 0, "", "x509: the caBundle holds no certificate"};
    client.set_ca_cert_store(store);
  }
  client.enable_server_certificate_verification(true);
  client.set_connection_timeout(timeout_seconds, 0);
  client.set_read_timeout(timeout_seconds, 0);
  client.set_write_timeout(timeout_seconds, 0);
  // The real server sends the webhook its timeout in the query, too.
  const std::string path = target.path + "?timeout=" + std::to_string(timeout_seconds) + "s";
  auto result = client.Post(path, body, "application/json");
  if (!result) {
    std::string error = httplib::to_string(result.error());
    if (client.get_openssl_verify_result() != X509_V_OK) {
      error += ": x509: " +
               std::string(X509_verify_cert_error_string(client.get_openssl_verify_result()));
    }
    return {false, 0, "", error};
  }
  return {true, result->status, result->body, ""};
}

}  // namespace gpupool::sandbox
