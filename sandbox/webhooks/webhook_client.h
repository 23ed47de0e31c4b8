// The HTTPS call of one admission webhook: a POST to its clientConfig.url,
// verifying the server with its caBundle, within its timeout.
#pragma once

#include <string>

namespace gpupool::sandbox {

struct WebhookReply {
  bool answered = false;  // false: no HTTP answer (connection, TLS, timeout)
  int status = 0;
  std::string body;
  std::string error;  // why there was no answer
};

// POSTs `body` (JSON) to `url` (https://host[:port][/path]); `ca_bundle_pem`
// is the CA to trust, the system's when empty.
WebhookReply PostToWebhook(const std::string& url, const std::string& ca_bundle_pem,
                           const std::string& body, int timeout_seconds);

}  // namespace gpupool::sandbox
