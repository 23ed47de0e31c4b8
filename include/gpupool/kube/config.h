// How to reach and authenticate to an API server: from a kubeconfig file (or
// a $KUBECONFIG list), or from the in-cluster service-account files.
#pragma once

#include <string>
#include <vector>

namespace gpupool::kube {

struct RestConfig {
  std::string server;  // "https://host:port" (no trailing slash)
  std::string ca_pem;  // Empty: the system trust store.
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;  // Name to verify (and send as SNI) instead of the URL host.
  std::string token;            // Bearer token, used when token_file is empty.
  std::string token_file;       // Re-read whenever the file changes (rotated tokens).
  std::string client_cert_pem;
  std::string client_key_pem;
  std::string default_namespace = "default";
  std::string source;  // Where this came from, for messages: "kubeconfig /x (context y)".
};

// Reads the kubeconfig files (merged as kubectl does: the first file to set a
// value wins) and resolves `context`, or the current context when empty.
// Relative file paths are relative to the file that names them.
// Throws ConfigError naming the file and field at fault.
RestConfig LoadKubeconfig(const std::vector<std::string>& paths, const std::string& context = "");

// Files and directory of the in-cluster service account; overridable for tests.
struct InClusterPaths {
  std::string service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";
};

// KUBERNETES_SERVICE_HOST/PORT plus the service-account token (re-read on
// rotation), CA and namespace. Throws ConfigError when not in a cluster.
RestConfig InClusterConfig(const InClusterPaths& paths = {});

// The usual search order: `explicit_path` (a --kubeconfig flag), else
// $KUBECONFIG (a ':'-separated list), else ~/.kube/config when it exists,
// else the in-cluster config.
RestConfig LoadDefaultConfig(const std::string& explicit_path = "",
                             const std::string& context = "");

// Decodes standard base64 (whitespace ignored); throws std::invalid_argument.
std::string DecodeBase64(const std::string& text);

}  // namespace gpupool::kube
