// The webhook's certificates, kept by every replica of the controller in one
// Secret of its namespace (docs/workloads.md): a self-signed CA and a serving
// certificate for the webhook Service's names. Whoever finds the Secret absent,
// unreadable, made for other names or near its expiry writes a new pair (a
// compare-and-swap: one replica wins, the others read its pair). The CA bundle
// (the current CA and the one it replaced, so that replicas still serving the
// previous pair stay trusted) goes into every webhook of the
// MutatingWebhookConfiguration.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "gpupool/kube/client.h"
#include "gpupool/tls/server_context.h"

namespace gpupool::webhook {

inline const kube::Resource kSecrets{"", "v1", "secrets", true};
inline const kube::Resource kMutatingWebhookConfigurations{"admissionregistration.k8s.io", "v1",
                                                           "mutatingwebhookconfigurations", false};

struct CertificateSettings {
  std::string ns;  // The controller's namespace, the Secret's.
  std::string secret = "gpupool-webhook-tls";
  std::string configuration = "gpupool-pods";  // The MutatingWebhookConfiguration.
  // OpenSSL's subjectAltName form: "DNS:gpupool-webhook.gpupool-system.svc".
  std::string alt_names;
  std::chrono::seconds valid_for = std::chrono::hours(24 * 365);
  // A pair with less left than this is replaced.
  std::chrono::seconds renew_before = std::chrono::hours(24 * 90);
};

struct ServedPair {
  std::string cert_pem, key_pem;
  std::string ca_bundle;  // PEM: the current CA, then the one it replaced.
  bool written = false;   // This call made the pair.
  bool configuration_found = true;
};

// One pass: the pair in the Secret (made first when needed), and the bundle in
// the configuration. Throws kube::ApiError when the API server refuses or
// cannot be reached, std::runtime_error when OpenSSL fails.
ServedPair KeepCertificates(kube::Client& client, const CertificateSettings& settings);

// KeepCertificates at construction (throwing as it does: the listener must
// not start without a pair) and then every `resync` on a thread of its own;
// the served pair follows the Secret.
class CertificateKeeper {
 public:
  CertificateKeeper(std::unique_ptr<kube::Client> client, CertificateSettings settings,
                    std::chrono::seconds resync);
  ~CertificateKeeper();
  CertificateKeeper(const CertificateKeeper&) = delete;
  CertificateKeeper& operator=(const CertificateKeeper&) = delete;

  std::shared_ptr<tls::ServerContext> context() const { return context_; }

 private:
  void Run();

  std::unique_ptr<kube::Client> client_;
  CertificateSettings settings_;
  std::chrono::seconds resync_;
  std::shared_ptr<tls::ServerContext> context_;
  std::string served_cert_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace gpupool::webhook
