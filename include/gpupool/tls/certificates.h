// A CA and a serving certificate generated at start, held in memory: clients
// trust the CA (a kubeconfig's certificate-authority-data, a scraper's CA file)
// or skip verification; nothing is read from or kept on disk.
#pragma once

#include <openssl/evp.h>
#include <openssl/x509.h>

#include <chrono>
#include <optional>
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
  // From an hour ago; both the CA and the serving certificate.
  std::chrono::seconds valid_for = std::chrono::hours(24 * 365);
};

// Random serial numbers. Throws std::runtime_error when OpenSSL fails.
void GenerateTls(const CertificateNames& names, TlsMaterial& out);

// The certificate in PEM form.
std::string CertificatePem(X509* cert);
// The private key in PKCS#8 PEM form.
std::string PrivateKeyPem(EVP_PKEY* key);
// How long the first certificate in `pem` stays valid from now (negative once
// expired); nullopt when `pem` holds no certificate.
std::optional<std::chrono::seconds> ValidFor(const std::string& pem);

}  // namespace gpupool::tls
