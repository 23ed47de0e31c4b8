// A CA and a serving certificate generated at start, held in memory: clients
// trust the CA (a kubeconfig's certificate-authority-data, a scraper's CA file)
// or skip verification; nothing is read from or kept on disk.
#pragma once

#include <openssl/evp.h>
#include <openssl/x509.h>

#include <string>

namespace gpupool::tls {

struct TlsMaterial {
  X509* cert = nullptr;  // The serving certificate, signed by the CA.
  EVP_PKEY* key = nullptr;
  std::string ca_pem;

  TlsMaterial() = default;
  TlsMaterial(const TlsMaterial&) = delete;
  TlsMaterial& operator=(const TlsMaterial&) = delete;
  ~TlsMaterial();
};

struct CertificateNames {
  std::string common_name;  // Also the CA's, with " CA" after it.
  // OpenSSL's subjectAltName form: "IP:127.0.0.1,DNS:localhost".
  std::string alt_names = "IP:127.0.0.1,DNS:localhost";
};

// Valid from an hour ago for a year. Throws std::runtime_error when OpenSSL fails.
void GenerateTls(const CertificateNames& names, TlsMaterial& out);

// The certificate in PEM form.
std::string CertificatePem(X509* cert);

}  // namespace gpupool::tls
