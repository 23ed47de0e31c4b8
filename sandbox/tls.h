// A CA and a serving certificate generated at start: clients trust the CA
// through the kubeconfig; nothing is read from or kept on disk.
#pragma once

#include <openssl/evp.h>
#include <openssl/x509.h>

#include <string>

namespace gpupool::sandbox {

struct TlsMaterial {
  X509* cert = nullptr;  // serving certificate for 127.0.0.1 and localhost
  EVP_PKEY* key = nullptr;
  std::string ca_pem;

  TlsMaterial() = default;
  TlsMaterial(const TlsMaterial&) = delete;
  TlsMaterial& operator=(const TlsMaterial&) = delete;
  ~TlsMaterial();
};

// Throws std::runtime_error when OpenSSL fails.
void GenerateTls(TlsMaterial& out);

}  // namespace gpupool::sandbox
