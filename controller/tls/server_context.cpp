#include "gpupool/tls/server_context.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <stdexcept>

namespace gpupool::tls {
namespace {

constexpr auto kLookEvery = std::chrono::seconds(1);

std::string OpenSslError() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "unknown OpenSSL error";
  char text[256];
  ERR_error_string_n(code, text, sizeof text);
  return text;
}

SSL_CTX* NewServerContext() {
  SSL_CTX* context = SSL_CTX_new(TLS_server_method());
  if (!context) throw std::runtime_error("TLS setup failed: " + OpenSslError());
  SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
  // The poll loop sends what it can and comes back with the same buffer.
  SSL_CTX_set_mode(context, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  return context;
}

// "size:mtime" of each file; "" when either cannot be looked at.
std::string Stamp(const std::string& cert_file, const std::string& key_file) {
  std::string stamp;
  for (const auto* file : {&cert_file, &key_file}) {
    struct stat info {};
    if (::stat(file->c_str(), &info) != 0) return "";
    stamp += std::to_string(info.st_size) + ":" + std::to_string(info.st_mtim.tv_sec) + "." +
             std::to_string(info.st_mtim.tv_nsec) + ";";
  }
  return stamp;
}

// Throws std::runtime_error naming the file that failed.
SSL_CTX* LoadPair(const std::string& cert_file, const std::string& key_file) {
  SSL_CTX* context = NewServerContext();
  const auto fail = [&](const std::string& what) {
    SSL_CTX_free(context);
    throw std::runtime_error(what + ": " + OpenSslError());
  };
  if (SSL_CTX_use_certificate_chain_file(context, cert_file.c_str()) != 1)
    fail("cannot load the certificate " + cert_file);
  if (SSL_CTX_use_PrivateKey_file(context, key_file.c_str(), SSL_FILETYPE_PEM) != 1)
    fail("the private key " + key_file + " cannot be read or does not match the certificate " +
         cert_file);
  if (SSL_CTX_check_private_key(context) != 1)
    fail("the private key " + key_file + " does not match the certificate " + cert_file);
  return context;
}

// Throws std::runtime_error saying which of the two failed.
SSL_CTX* UsePem(const std::string& cert_pem, const std::string& key_pem) {
  SSL_CTX* context = NewServerContext();
  const auto fail = [&](const std::string& what) {
    SSL_CTX_free(context);
    throw std::runtime_error(what + ": " + OpenSslError());
  };
  using Bio = std::unique_ptr<BIO, decltype(&BIO_free)>;
  Bio cert_bio(BIO_new_mem_buf(cert_pem.data(), static_cast<int>(cert_pem.size())), BIO_free);
  X509* cert = PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr);
  if (!cert || SSL_CTX_use_certificate(context, cert) != 1) {
    X509_free(cert);
    fail("the certificate is not PEM");
  }
  X509_free(cert);  // The context holds its own reference.
  Bio key_bio(BIO_new_mem_buf(key_pem.data(), static_cast<int>(key_pem.size())), BIO_free);
  EVP_PKEY* key = PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr);
  const bool key_used = key && SSL_CTX_use_PrivateKey(context, key) == 1;
  EVP_PKEY_free(key);
  if (!key_used || SSL_CTX_check_private_key(context) != 1)
    fail("the private key is not PEM or does not match the certificate");
  return context;
}

}  // namespace

std::unique_ptr<ServerContext> ServerContext::FromPem(const std::string& cert_pem,
                                                      const std::string& key_pem) {
  std::unique_ptr<ServerContext> server(new ServerContext());
  server->context_ = UsePem(cert_pem, key_pem);
  return server;
}

void ServerContext::Serve(const std::string& cert_pem, const std::string& key_pem) {
  SSL_CTX* fresh = UsePem(cert_pem, key_pem);
  const std::lock_guard lock(mutex_);
  SSL_CTX_free(context_);  // Connections made with it hold their own reference.
  context_ = fresh;
}

std::unique_ptr<ServerContext> ServerContext::SelfSigned(const CertificateNames& names) {
  TlsMaterial material;
  GenerateTls(names, material);
  std::unique_ptr<ServerContext> server(new ServerContext());
  server->context_ = NewServerContext();
  if (SSL_CTX_use_certificate(server->context_, material.cert) != 1 ||
      SSL_CTX_use_PrivateKey(server->context_, material.key) != 1)
    throw std::runtime_error("TLS setup failed: " + OpenSslError());
  server->ca_pem_ = material.ca_pem;
  return server;
}

std::unique_ptr<ServerContext> ServerContext::FromFiles(std::string cert_file,
                                                        std::string key_file) {
  std::unique_ptr<ServerContext> server(new ServerContext());
  server->loaded_stamp_ = Stamp(cert_file, key_file);
  server->context_ = LoadPair(cert_file, key_file);
  server->cert_file_ = std::move(cert_file);
  server->key_file_ = std::move(key_file);
  server->next_look_ = std::chrono::steady_clock::now() + kLookEvery;
  return server;
}

ServerContext::~ServerContext() { SSL_CTX_free(context_); }

void ServerContext::ReloadIfChanged() {
  if (cert_file_.empty() || std::chrono::steady_clock::now() < next_look_) return;
  next_look_ = std::chrono::steady_clock::now() + kLookEvery;
  const std::string stamp = Stamp(cert_file_, key_file_);
  if (stamp.empty() || stamp == loaded_stamp_) return;
  try {
    SSL_CTX* fresh = LoadPair(cert_file_, key_file_);
    SSL_CTX_free(context_);  // Connections made with it hold their own reference.
    context_ = fresh;
    spdlog::info("serving the certificate {} read again", cert_file_);
  } catch (const std::runtime_error& error) {
    // A rotation writes the two files one after the other: look again later.
    spdlog::warn("{}; serving the previous certificate", error.what());
  }
  loaded_stamp_ = stamp;
}

SSL* ServerContext::Accept(int fd) {
  const std::lock_guard lock(mutex_);
  ReloadIfChanged();
  SSL* ssl = SSL_new(context_);
  if (!ssl) return nullptr;
  if (SSL_set_fd(ssl, fd) != 1) {
    SSL_free(ssl);
    return nullptr;
  }
  SSL_set_accept_state(ssl);
  return ssl;
}

}  // namespace gpupool::tls
