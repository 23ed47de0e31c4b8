#include "test_tls.h"

#include <arpa/inet.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>

namespace gpupool::kube::testing {
namespace {

struct KeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct CertFree {
  void operator()(X509* cert) const { X509_free(cert); }
};
using Key = std::unique_ptr<EVP_PKEY, KeyFree>;
using Cert = std::unique_ptr<X509, CertFree>;

Key NewKey() { return Key(EVP_EC_gen("P-256")); }

void AddExtension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (!ext) throw std::runtime_error("bad extension " + value);
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

// Signs `key`'s certificate with `issuer_key` (self-signed when issuer is null).
Cert NewCert(EVP_PKEY* key, const std::string& common_name, X509* issuer, EVP_PKEY* issuer_key,
             bool is_ca, const std::string& san) {
  static std::mt19937 serials(12345);
  Cert cert(X509_new());
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), static_cast<long>(serials() & 0x7fffffff));
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 7 * 24 * 3600);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1,
                             0);
  X509* signer = issuer ? issuer : cert.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(signer));
  AddExtension(cert.get(), signer, NID_basic_constraints, is_ca ? "critical,CA:TRUE" : "CA:FALSE");
  if (is_ca) AddExtension(cert.get(), signer, NID_key_usage, "critical,keyCertSign,cRLSign");
  AddExtension(cert.get(), signer, NID_subject_key_identifier, "hash");
  if (!san.empty()) AddExtension(cert.get(), signer, NID_subject_alt_name, san);
  X509_sign(cert.get(), issuer_key ? issuer_key : key, EVP_sha256());
  return cert;
}

std::string CertPem(X509* cert) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(bio, cert);
  char* data = nullptr;
  long size = BIO_get_mem_data(bio, &data);
  std::string pem(data, static_cast<size_t>(size));
  BIO_free(bio);
  return pem;
}

std::string KeyPem(EVP_PKEY* key) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  long size = BIO_get_mem_data(bio, &data);
  std::string pem(data, static_cast<size_t>(size));
  BIO_free(bio);
  return pem;
}

std::string SanList(const std::vector<std::string>& names) {
  std::string san;
  for (const auto& name : names) {
    in_addr address{};
    bool is_ip = inet_pton(AF_INET, name.c_str(), &address) == 1;
    if (!san.empty()) san.append(",");
    san.append(is_ip ? "IP:" : "DNS:").append(name);
  }
  return san;
}

}  // namespace

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

std::string MakeTempDir(const std::string& prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

TlsFiles MakeTlsFiles(const std::string& dir, const std::vector<std::string>& server_names,
                      const std::string& client_common_name) {
  TlsFiles files;
  files.dir = dir;
  Key ca_key = NewKey();
  Cert ca = NewCert(ca_key.get(), "gpupool-test-ca", nullptr, nullptr, true, "");
  Key server_key = NewKey();
  Cert server = NewCert(server_key.get(), server_names.front(), ca.get(), ca_key.get(), false,
                        SanList(server_names));
  Key client_key = NewKey();
  Cert client = NewCert(client_key.get(), client_common_name, ca.get(), ca_key.get(), false, "");
  Key other_key = NewKey();
  Cert other = NewCert(other_key.get(), "unrelated-ca", nullptr, nullptr, true, "");
  files.ca_pem = CertPem(ca.get());
  files.client_cert_pem = CertPem(client.get());
  files.client_key_pem = KeyPem(client_key.get());
  files.other_ca_pem = CertPem(other.get());
  files.ca_cert = dir + "/ca.crt";
  files.server_cert = dir + "/server.crt";
  files.server_key = dir + "/server.key";
  files.client_cert = dir + "/client.crt";
  files.client_key = dir + "/client.key";
  WriteFile(files.ca_cert, files.ca_pem);
  WriteFile(files.server_cert, CertPem(server.get()));
  WriteFile(files.server_key, KeyPem(server_key.get()));
  WriteFile(files.client_cert, files.client_cert_pem);
  WriteFile(files.client_key, files.client_key_pem);
  return files;
}

}  // namespace gpupool::kube::testing
