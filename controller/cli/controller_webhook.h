// `gpupool controller`'s admission webhook (docs/workloads.md): its flags, and
// its listener with certificates from files (cert-manager) or kept in a
// Secret. Every replica serves it, leader or not, from before its caches sync.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpupool/kube/client.h"
#include "gpupool/metrics/bind_address.h"
#include "gpupool/metrics/bounded_http_server.h"
#include "gpupool/webhook/certificates.h"

namespace gpupool::cli {

extern const char kWebhookUsage[];

struct WebhookFlags {
  std::optional<metrics::BindAddress> address;  // Absent: not served.
  std::string cert_dir;                         // tls.crt and tls.key; "": the Secret's.
  std::string secret = "gpupool-webhook-tls";
  std::string ns;  // The Secret's; "": the config's namespace.
  std::string configuration = "gpupool-pods";
  std::vector<std::string> hosts;           // The Service's DNS names (or IPs).
  std::vector<std::string> record_writers;  // Empty: this controller's own user.
};

// Takes `flag` when it is a --webhook-* flag (reading its value with `value`);
// false when it is not one. Throws UsageError naming the flag.
bool ParseWebhookFlag(const std::string& flag, const std::function<std::string()>& value,
                      WebhookFlags& flags);
// Throws UsageError for flags that do not go together.
void CheckWebhookFlags(const WebhookFlags& flags);

struct WebhookListener {
  std::unique_ptr<webhook::CertificateKeeper> keeper;  // Null with --webhook-cert-dir.
  std::unique_ptr<metrics::BoundedHttpServer> server;
};

// Binds and serves; throws when it cannot bind, or cannot keep the Secret's
// certificates, or cannot learn this controller's user (SelfSubjectReview)
// when no --webhook-record-writer names it.
WebhookListener ServeWebhook(const WebhookFlags& flags, const kube::RestConfig& config,
                             kube::TransportOptions transport);

}  // namespace gpupool::cli
