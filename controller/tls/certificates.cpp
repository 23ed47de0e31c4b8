#include "gpupool/tls/certificates.h"

#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>

namespace gpupool::tls {
namespace {

void Check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("TLS setup failed: ") + what);
}

EVP_PKEY* NewKey() {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  Check(key != nullptr, "generating an EC key");
  return key;
}

void AddExtension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX context;
  X509V3_set_ctx_nodb(&context);
  X509V3_set_ctx(&context, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &context, nid, value);
  Check(extension != nullptr, "building an extension");
  X509_add_ext(cert, extension, -1);
  X509_EXTENSION_free(extension);
}

// A positive 63-bit random serial: a rotated CA never repeats its predecessor's.
void SetRandomSerial(X509* cert) {
  std::uint64_t serial = 0;
  Check(RAND_bytes(reinterpret_cast<unsigned char*>(&serial), sizeof serial) == 1,
        "drawing a serial number");
  ASN1_INTEGER_set_uint64(X509_get_serialNumber(cert), (serial >> 1) | 1);
}

X509* NewCert(EVP_PKEY* key, const char* common_name, std::chrono::seconds valid_for) {
  X509* cert = X509_new();
  Check(cert != nullptr, "allocating a certificate");
  X509_set_version(cert, 2);
  SetRandomSerial(cert);
  X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert), static_cast<long>(valid_for.count()));
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(common_name), -1, -1, 0);
  return cert;
}

// What `write` puts into a memory BIO, as text.
template <typename Write>
std::string PemOf(Write write, const char* what) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
  Check(bio && write(bio.get()) == 1, what);
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(size));
}

}  // namespace

std::string CertificatePem(X509* cert) {
  return PemOf([cert](BIO* bio) { return PEM_write_bio_X509(bio, cert); }, "writing PEM");
}

std::string PrivateKeyPem(EVP_PKEY* key) {
  return PemOf(
      [key](BIO* bio) {
        return PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
      },
      "writing the key's PEM");
}

std::optional<std::chrono::seconds> ValidFor(const std::string& pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), BIO_free);
  std::unique_ptr<X509, decltype(&X509_free)> cert(
      bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr, X509_free);
  int days = 0, seconds = 0;
  if (!cert || ASN1_TIME_diff(&days, &seconds, nullptr, X509_get0_notAfter(cert.get())) != 1)
    return std::nullopt;
  return std::chrono::seconds(std::int64_t{days} * 86400 + seconds);
}

TlsMaterial::~TlsMaterial() {
  X509_free(cert);
  EVP_PKEY_free(key);
}

void GenerateTls(const CertificateNames& names, TlsMaterial& out) {
  EVP_PKEY* ca_key = NewKey();
  const std::string ca_name = names.common_name + " CA";
  X509* ca = NewCert(ca_key, ca_name.c_str(), names.valid_for);
  X509_set_issuer_name(ca, X509_get_subject_name(ca));
  AddExtension(ca, ca, NID_basic_constraints, "critical,CA:TRUE");
  AddExtension(ca, ca, NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature");
  AddExtension(ca, ca, NID_subject_key_identifier, "hash");
  Check(X509_sign(ca, ca_key, EVP_sha256()) > 0, "signing the CA");

  out.key = NewKey();
  out.cert = NewCert(out.key, names.common_name.c_str(), names.valid_for);
  X509_set_issuer_name(out.cert, X509_get_subject_name(ca));
  AddExtension(out.cert, ca, NID_basic_constraints, "critical,CA:FALSE");
  AddExtension(out.cert, ca, NID_key_usage, "critical,digitalSignature,keyEncipherment");
  AddExtension(out.cert, ca, NID_ext_key_usage, "serverAuth");
  AddExtension(out.cert, ca, NID_subject_alt_name, names.alt_names.c_str());
  AddExtension(out.cert, ca, NID_authority_key_identifier, "keyid:always");
  Check(X509_sign(out.cert, ca_key, EVP_sha256()) > 0, "signing the serving certificate");
  out.ca_pem = CertificatePem(ca);
  X509_free(ca);
  EVP_PKEY_free(ca_key);
}

}  // namespace gpupool::tls
