#include "gpupool/webhook/certificates.h"

#include <spdlog/spdlog.h>

#include <optional>
#include <stdexcept>

#include "encoding.h"
#include "gpupool/kube/config.h"
#include "gpupool/kube/errors.h"
#include "gpupool/tls/certificates.h"

namespace gpupool::webhook {
namespace {

using Json = nlohmann::json;

constexpr char kNamesAnnotation[] = "gpupool.dev/certificate-names";
constexpr char kPemEnd[] = "-----END CERTIFICATE-----";

// The first certificate of a PEM bundle.
std::string FirstCertificate(const std::string& bundle) {
  const auto end = bundle.find(kPemEnd);
  if (end == std::string::npos) return "";
  return bundle.substr(0, end + sizeof kPemEnd - 1) + "\n";
}

std::string DataField(const Json& secret, const char* key) {
  const auto data = secret.find("data");
  if (data == secret.end() || !data->is_object() || !data->contains(key) ||
      !(*data)[key].is_string())
    return "";
  try {
    return kube::DecodeBase64((*data)[key].get<std::string>());
  } catch (const std::invalid_argument&) {
    return "";
  }
}

// The Secret's pair when it serves `settings` for long enough; else nullopt,
// and `why` (empty before) says why not.
std::optional<ServedPair> UsablePair(const Json& secret, const CertificateSettings& settings,
                                     std::string& why) {
  ServedPair pair{DataField(secret, "tls.crt"), DataField(secret, "tls.key"),
                  DataField(secret, "ca.crt")};
  const auto names = secret["metadata"].value("annotations", Json::object());
  const auto left = tls::ValidFor(pair.cert_pem);
  if (!left || pair.key_pem.empty() || FirstCertificate(pair.ca_bundle).empty())
    why = "it holds no certificate, key and CA";
  else if (names.value(kNamesAnnotation, "") != settings.alt_names)
    why = "its certificate is for other names";
  else if (*left < settings.renew_before)
    why = "its certificate expires in " + std::to_string(left->count() / 3600) + " h";
  if (!why.empty()) return std::nullopt;
  try {
    tls::ServerContext::FromPem(pair.cert_pem, pair.key_pem);
  } catch (const std::runtime_error& error) {
    why = error.what();
    return std::nullopt;
  }
  return pair;
}

ServedPair NewPair(const CertificateSettings& settings, const std::string& previous_ca) {
  tls::TlsMaterial material;
  tls::GenerateTls({"gpupool-webhook", settings.alt_names, settings.valid_for}, material);
  return {tls::CertificatePem(material.cert), tls::PrivateKeyPem(material.key),
          material.ca_pem + FirstCertificate(previous_ca), true};
}

Json SecretOf(const CertificateSettings& settings, const ServedPair& pair, Json secret) {
  secret["apiVersion"] = "v1";
  secret["kind"] = "Secret";
  secret["metadata"]["name"] = settings.secret;
  secret["metadata"]["namespace"] = settings.ns;
  secret["metadata"]["annotations"][kNamesAnnotation] = settings.alt_names;
  secret["type"] = "kubernetes.io/tls";
  secret["data"] = {{"tls.crt", internal::EncodeBase64(pair.cert_pem)},
                    {"tls.key", internal::EncodeBase64(pair.key_pem)},
                    {"ca.crt", internal::EncodeBase64(pair.ca_bundle)}};
  return secret;
}

// The Secret's pair, written first when it is not usable. A replica that
// loses the race (AlreadyExists, Conflict) reads the winner's.
ServedPair PairInSecret(kube::Client& client, const CertificateSettings& settings) {
  for (int attempt = 0;; ++attempt) {
    Json secret;
    try {
      secret = client.Get(kSecrets, settings.ns, settings.secret);
    } catch (const kube::ApiError& error) {
      if (!kube::IsNotFound(error)) throw;
    }
    std::string why = "it does not exist";
    if (!secret.is_null()) {
      why.clear();
      if (auto pair = UsablePair(secret, settings, why)) return *pair;
    }
    ServedPair fresh = NewPair(settings, DataField(secret, "ca.crt"));
    try {
      if (secret.is_null())
        client.Create(kSecrets, settings.ns, SecretOf(settings, fresh, Json::object()));
      else
        client.Update(kSecrets, settings.ns, SecretOf(settings, fresh, secret));
      spdlog::info("wrote a new webhook certificate to Secret {}/{}: {}", settings.ns,
                   settings.secret, why);
      return fresh;
    } catch (const kube::ApiError& error) {
      const bool lost_race = kube::IsAlreadyExists(error) || kube::IsConflict(error);
      if (!lost_race || attempt == 2) throw;
    }
  }
}

// False when the configuration does not exist.
bool WriteCaBundle(kube::Client& client, const CertificateSettings& settings,
                   const std::string& ca_bundle) {
  Json configuration;
  try {
    configuration = client.Get(kMutatingWebhookConfigurations, "", settings.configuration);
  } catch (const kube::ApiError& error) {
    if (kube::IsNotFound(error)) return false;
    throw;
  }
  const std::string encoded = internal::EncodeBase64(ca_bundle);
  bool changed = false;
  if (!configuration.contains("webhooks") || !configuration["webhooks"].is_array()) return true;
  for (auto& hook : configuration["webhooks"]) {
    if (hook["clientConfig"].value("caBundle", "") == encoded) continue;
    hook["clientConfig"]["caBundle"] = encoded;
    changed = true;
  }
  // A Conflict is left for the next pass, which reads the configuration again.
  if (changed) client.Update(kMutatingWebhookConfigurations, "", configuration);
  return true;
}

}  // namespace

ServedPair KeepCertificates(kube::Client& client, const CertificateSettings& settings) {
  ServedPair pair = PairInSecret(client, settings);
  pair.configuration_found = WriteCaBundle(client, settings, pair.ca_bundle);
  return pair;
}

CertificateKeeper::CertificateKeeper(std::unique_ptr<kube::Client> client,
                                     CertificateSettings settings, std::chrono::seconds resync)
    : client_(std::move(client)), settings_(std::move(settings)), resync_(resync) {
  const ServedPair pair = KeepCertificates(*client_, settings_);
  if (!pair.configuration_found)
    spdlog::warn("MutatingWebhookConfiguration {} not found: the API server calls no webhook",
                 settings_.configuration);
  context_ = tls::ServerContext::FromPem(pair.cert_pem, pair.key_pem);
  served_cert_ = pair.cert_pem;
  thread_ = std::thread([this] { Run(); });
}

CertificateKeeper::~CertificateKeeper() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  client_->Cancel();
  thread_.join();
}

void CertificateKeeper::Run() {
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, resync_, [this] { return stop_; })) {
    lock.unlock();
    try {
      const ServedPair pair = KeepCertificates(*client_, settings_);
      if (pair.cert_pem != served_cert_) {
        context_->Serve(pair.cert_pem, pair.key_pem);
        served_cert_ = pair.cert_pem;
        spdlog::info("serving the webhook certificate of Secret {}/{}", settings_.ns,
                     settings_.secret);
      }
    } catch (const std::exception& error) {
      spdlog::warn("keeping the webhook certificates: {}", error.what());
    }
    lock.lock();
  }
}

}  // namespace gpupool::webhook
