// Test TLS material made with the OpenSSL API: a CA, a server certificate for
// chosen names, and a client certificate, written as PEM files in a temp dir.
#pragma once

#include <string>
#include <vector>

namespace gpupool::kube::testing {

struct TlsFiles {
  std::string dir;
  std::string ca_cert, ca_pem;          // Path and contents.
  std::string server_cert, server_key;  // Paths.
  std::string client_cert, client_key;  // Paths.
  std::string client_cert_pem, client_key_pem;
  std::string other_ca_pem;  // A CA that signed nothing we serve.
};

// `server_names` become the server certificate's subjectAltNames (an entry
// that parses as an IPv4 address becomes an IP SAN). Files live under `dir`.
TlsFiles MakeTlsFiles(const std::string& dir, const std::vector<std::string>& server_names,
                      const std::string& client_common_name = "gpupool-test-user");

std::string ReadFile(const std::string& path);
void WriteFile(const std::string& path, const std::string& text);
// A fresh directory under the system temp dir.
std::string MakeTempDir(const std::string& prefix);

}  // namespace gpupool::kube::testing
