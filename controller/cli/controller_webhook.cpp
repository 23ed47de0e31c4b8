#include "controller_webhook.h"

#include <arpa/inet.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <sstream>

#include "gpupool/kube/errors.h"
#include "gpupool/tls/server_context.h"
#include "gpupool/webhook/server.h"
#include "listener_flags.h"
#include "numeric_flag.h"

namespace gpupool::cli {

const char kWebhookUsage[] =
    "  --webhook-bind-address A   HOST:PORT of the pod admission webhook, served by every\n"
    "                             replica (default 0: not served; the chart serves :9443)\n"
    "  --webhook-host NAMES       comma-separated DNS names (or IPs) the webhook is called\n"
    "                             at: its Service's (default gpupool-webhook.NS.svc)\n"
    "  --webhook-secret NAME      Secret of the controller's namespace that keeps the\n"
    "                             webhook's CA and certificate (default gpupool-webhook-tls)\n"
    "  --webhook-namespace N      namespace of that Secret (default: the config's namespace)\n"
    "  --webhook-configuration N  MutatingWebhookConfiguration whose caBundle is kept\n"
    "                             (default gpupool-pods)\n"
    "  --webhook-cert-dir DIR     DIR/tls.crt and DIR/tls.key instead (cert-manager), read\n"
    "                             again when they change; no Secret is kept\n"
    "  --webhook-record-writer U  a user who may release pods and write their admission\n"
    "                             records; repeatable (default: this controller's own user)\n";

namespace {

std::vector<std::string> HostsFlag(const std::string& flag, const std::string& value) {
  std::vector<std::string> hosts;
  std::istringstream list(value);
  for (std::string host; std::getline(list, host, ',');) {
    if (host.empty() || host.find_first_of(" :/") != std::string::npos)
      throw UsageError(flag + ": \"" + host + "\" is not a DNS name or an IPv4 address");
    hosts.push_back(host);
  }
  if (hosts.empty()) throw UsageError(flag + ": names no host");
  return hosts;
}

std::string AltNames(const std::vector<std::string>& hosts) {
  std::string names;
  for (const std::string& host : hosts) {
    in_addr ip{};
    const bool is_ip = ::inet_pton(AF_INET, host.c_str(), &ip) == 1;
    names += (names.empty() ? "" : ",") + std::string(is_ip ? "IP:" : "DNS:") + host;
  }
  return names;
}

// Who this controller is to the API server (SelfSubjectReview).
std::string OwnUser(kube::Client& client) {
  const kube::Json review = {{"apiVersion", "authentication.k8s.io/v1"},
                             {"kind", "SelfSubjectReview"}};
  try {
    const kube::Json answer =
        client.Request("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", &review);
    const std::string user = answer["status"]["userInfo"].value("username", "");
    if (!user.empty()) return user;
  } catch (const kube::ApiError& error) {
    throw std::runtime_error("cannot learn this controller's user (" + std::string(error.what()) +
                             "); name it with --webhook-record-writer");
  }
  throw std::runtime_error(
      "the API server names no user for this controller; name it with --webhook-record-writer");
}

}  // namespace

bool ParseWebhookFlag(const std::string& flag, const std::function<std::string()>& value,
                      WebhookFlags& flags) {
  if (flag == "--webhook-bind-address")
    flags.address = BindAddressFlag(flag, value());
  else if (flag == "--webhook-host")
    flags.hosts = HostsFlag(flag, value());
  else if (flag == "--webhook-secret")
    flags.secret = NameFlag(flag, value());
  else if (flag == "--webhook-namespace")
    flags.ns = NameFlag(flag, value());
  else if (flag == "--webhook-configuration")
    flags.configuration = NonEmptyFlag(flag, value());
  else if (flag == "--webhook-cert-dir")
    flags.cert_dir = CertDirFlag(flag, value());
  else if (flag == "--webhook-record-writer")
    flags.record_writers.push_back(NonEmptyFlag(flag, value()));
  else
    return false;
  return true;
}

void CheckWebhookFlags(const WebhookFlags& flags) {
  if (!flags.cert_dir.empty() && !flags.address)
    throw UsageError("--webhook-cert-dir: needs --webhook-bind-address");
}

WebhookListener ServeWebhook(const WebhookFlags& flags, const kube::RestConfig& config,
                             kube::TransportOptions transport) {
  WebhookListener listener;
  if (!flags.address) return listener;
  transport.qps = 5;
  transport.burst = 10;
  auto client = std::make_unique<kube::Client>(config, transport);
  webhook::GateSettings gate{flags.record_writers};
  if (gate.record_writers.empty()) gate.record_writers.push_back(OwnUser(*client));
  std::shared_ptr<tls::ServerContext> tls;
  if (flags.cert_dir.empty()) {
    webhook::CertificateSettings settings;
    settings.ns = flags.ns.empty() ? client->default_namespace() : flags.ns;
    settings.secret = flags.secret;
    settings.configuration = flags.configuration;
    settings.alt_names = AltNames(
        flags.hosts.empty() ? std::vector{"gpupool-webhook." + settings.ns + ".svc"} : flags.hosts);
    listener.keeper = std::make_unique<webhook::CertificateKeeper>(std::move(client), settings,
                                                                   std::chrono::minutes(10));
    tls = listener.keeper->context();
  } else {
    tls = tls::ServerContext::FromFiles(flags.cert_dir + "/tls.crt", flags.cert_dir + "/tls.key");
  }
  listener.server = webhook::ServeWebhook(*flags.address, tls, gate);
  spdlog::info("serving the pod admission webhook on {}{} to {} as record writers",
               metrics::BindAddress{flags.address->host, listener.server->port()}.ToString(),
               webhook::kMutatePodsPath, fmt::join(gate.record_writers, ", "));
  return listener;
}

}  // namespace gpupool::cli
