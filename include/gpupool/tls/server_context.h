// The OpenSSL server side of a listener: a certificate and key read from PEM
// files, read again when either file changes (cert-manager and kubelet rotate
// mounted Secrets in place), given in memory and replaced when rotated (the
// webhook's Secret), or generated at start when no files are named.
#pragma once

#include <openssl/ssl.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "gpupool/tls/certificates.h"

namespace gpupool::tls {

class ServerContext {
 public:
  // A CA and a serving certificate for `names`, generated now.
  static std::unique_ptr<ServerContext> SelfSigned(const CertificateNames& names);
  // tls.crt-style certificate chain and key files. Throws std::runtime_error
  // naming the file when either cannot be read or they do not match.
  static std::unique_ptr<ServerContext> FromFiles(std::string cert_file, std::string key_file);
  // A PEM certificate chain and key in memory; Serve replaces them. Throws
  // std::runtime_error when they cannot be read or do not match.
  static std::unique_ptr<ServerContext> FromPem(const std::string& cert_pem,
                                                const std::string& key_pem);
  // From the next connection on, serves this pair (from any thread); throws
  // std::runtime_error, the previous pair still serving, when it is bad.
  void Serve(const std::string& cert_pem, const std::string& key_pem);

  ~ServerContext();
  ServerContext(const ServerContext&) = delete;
  ServerContext& operator=(const ServerContext&) = delete;

  // A server-side SSL for an accepted, non-blocking socket; null when OpenSSL
  // cannot make one. With files, changed files are read first (looked at most
  // once a second); files that fail to load leave the previous pair serving.
  SSL* Accept(int fd);
  // The generated CA in PEM form; "" with files.
  const std::string& ca_pem() const { return ca_pem_; }

 private:
  ServerContext() = default;
  void ReloadIfChanged();

  std::mutex mutex_;  // Guards context_: Serve replaces it from another thread.
  SSL_CTX* context_ = nullptr;
  std::string cert_file_, key_file_, ca_pem_;
  std::string loaded_stamp_;  // Sizes and modification times of the files loaded.
  std::chrono::steady_clock::time_point next_look_;
};

}  // namespace gpupool::tls
