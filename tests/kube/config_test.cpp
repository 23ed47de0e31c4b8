#include "gpupool/kube/config.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "gpupool/kube/errors.h"
#include "test_tls.h"

namespace gpupool::kube {
namespace {

using testing::MakeTempDir;
using testing::WriteFile;

std::string Base64(const std::string& text) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < text.size(); i += 3) {
    unsigned v =
        (unsigned char)text[i] << 16 | (unsigned char)text[i + 1] << 8 | (unsigned char)text[i + 2];
    for (int s : {18, 12, 6, 0}) out += kAlphabet[(v >> s) & 63];
  }
  if (i + 1 == text.size()) {
    unsigned v = (unsigned char)text[i] << 16;
    out += std::string{kAlphabet[(v >> 18) & 63], kAlphabet[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == text.size()) {
    unsigned v = (unsigned char)text[i] << 16 | (unsigned char)text[i + 1] << 8;
    out += std::string{kAlphabet[(v >> 18) & 63], kAlphabet[(v >> 12) & 63],
                       kAlphabet[(v >> 6) & 63], '='};
  }
  return out;
}

class KubeconfigTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir("kubeconfig"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    std::string path = dir_ + "/" + name;
    WriteFile(path, text);
    return path;
  }

  // Expects LoadKubeconfig to fail with a message containing every fragment.
  void ExpectError(const std::string& yaml, std::initializer_list<std::string> fragments,
                   const std::string& context = "") {
    std::string path = Write("bad.yaml", yaml);
    try {
      LoadKubeconfig({path}, context);
      ADD_FAILURE() << "no error for:\n" << yaml;
    } catch (const ConfigError& e) {
      for (const auto& fragment : fragments)
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
            << "message: " << e.what() << "\nmissing: " << fragment;
    }
  }

  std::string dir_;
};

constexpr char kTokenConfig[] = R"(apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: c1
  cluster:
    server: https://127.0.0.1:6443/
    certificate-authority-data: Q0EgUEVN
contexts:
- name: dev
  context: {cluster: c1, user: alice, namespace: team-a}
- name: other
  context: {cluster: c1, user: bob}
users:
- name: alice
  user: {token: secret-token}
- name: bob
  user: {token: bob-token}
)";

TEST_F(KubeconfigTest, TokenWithCaDataAndCurrentContext) {
  RestConfig config = LoadKubeconfig({Write("config", kTokenConfig)});
  EXPECT_EQ(config.server, "https://127.0.0.1:6443");
  EXPECT_EQ(config.ca_pem, "CA PEM");
  EXPECT_EQ(config.token, "secret-token");
  EXPECT_EQ(config.default_namespace, "team-a");
  EXPECT_FALSE(config.insecure_skip_tls_verify);
  EXPECT_NE(config.source.find("context dev"), std::string::npos);
}

TEST_F(KubeconfigTest, NamedContextOverridesCurrent) {
  RestConfig config = LoadKubeconfig({Write("config", kTokenConfig)}, "other");
  EXPECT_EQ(config.token, "bob-token");
  EXPECT_EQ(config.default_namespace, "default");
}

TEST_F(KubeconfigTest, ClientCertificateAndCaFilesRelativeToTheKubeconfig) {
  std::filesystem::create_directories(dir_ + "/pki");
  Write("pki/ca.crt", "CA FILE");
  Write("pki/client.crt", "CERT FILE");
  Write("pki/client.key", "KEY FILE");
  RestConfig config = LoadKubeconfig({Write("config", R"(
current-context: x
clusters: [{name: c, cluster: {server: "https://h:1", certificate-authority: pki/ca.crt, tls-server-name: api.internal}}]
users: [{name: u, user: {client-certificate: pki/client.crt, client-key: pki/client.key}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
)")});
  EXPECT_EQ(config.ca_pem, "CA FILE");
  EXPECT_EQ(config.client_cert_pem, "CERT FILE");
  EXPECT_EQ(config.client_key_pem, "KEY FILE");
  EXPECT_EQ(config.tls_server_name, "api.internal");
}

TEST_F(KubeconfigTest, ClientCertificateData) {
  RestConfig config =
      LoadKubeconfig({Write("config",
                            "current-context: x\n"
                            "clusters: [{name: c, cluster: {server: 'https://h:1'}}]\n"
                            "users: [{name: u, user: {client-certificate-data: " +
                                Base64("CERT") + ", client-key-data: " + Base64("KEY!") +
                                "}}]\n"
                                "contexts: [{name: x, context: {cluster: c, user: u}}]\n")});
  EXPECT_EQ(config.client_cert_pem, "CERT");
  EXPECT_EQ(config.client_key_pem, "KEY!");
}

TEST_F(KubeconfigTest, InsecureSkipVerifyAndTokenFile) {
  Write("token", "file-token\n");
  RestConfig config = LoadKubeconfig({Write("config", R"(
current-context: x
clusters: [{name: c, cluster: {server: "https://h:1", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {tokenFile: token}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
)")});
  EXPECT_TRUE(config.insecure_skip_tls_verify);
  EXPECT_EQ(config.token_file, dir_ + "/token");
}

TEST_F(KubeconfigTest, MergesFilesFirstValueWins) {
  std::string first = Write("a", R"(
clusters: [{name: c, cluster: {server: "https://first:1"}}]
users: [{name: u, user: {token: first}}]
)");
  std::string second = Write("b", R"(
current-context: x
clusters: [{name: c, cluster: {server: "https://second:1"}}]
users: [{name: u, user: {token: second}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
)");
  RestConfig config = LoadKubeconfig({first, second});
  EXPECT_EQ(config.server, "https://first:1");
  EXPECT_EQ(config.token, "first");
}

TEST_F(KubeconfigTest, DefaultSearchOrder) {
  std::string flag = Write("flag", std::string(kTokenConfig));
  std::string env_file = Write("env", R"(
current-context: x
clusters: [{name: c, cluster: {server: "https://env:1"}}]
contexts: [{name: x, context: {cluster: c}}]
)");
  std::filesystem::create_directories(dir_ + "/home/.kube");
  Write("home/.kube/config", R"(
current-context: x
clusters: [{name: c, cluster: {server: "https://home:1"}}]
contexts: [{name: x, context: {cluster: c}}]
)");
  std::string old_home = std::getenv("HOME") ? std::getenv("HOME") : "";
  setenv("HOME", (dir_ + "/home").c_str(), 1);
  setenv("KUBECONFIG", (dir_ + "/missing:" + env_file).c_str(), 1);
  EXPECT_EQ(LoadDefaultConfig(flag).server, "https://127.0.0.1:6443");
  EXPECT_EQ(LoadDefaultConfig().server, "https://env:1");
  setenv("KUBECONFIG", (dir_ + "/missing").c_str(), 1);
  EXPECT_THROW(LoadDefaultConfig(), ConfigError);
  unsetenv("KUBECONFIG");
  EXPECT_EQ(LoadDefaultConfig().server, "https://home:1");
  setenv("HOME", old_home.c_str(), 1);
}

TEST_F(KubeconfigTest, MalformedInputsNameFileAndField) {
  ExpectError("a: [unclosed", {"bad.yaml", "invalid YAML"});
  ExpectError("- just\n- a list\n", {"top level is not a mapping"});
  ExpectError("clusters: []\n", {"current-context is not set"});
  ExpectError("current-context: nope\ncontexts: []\n", {"context \"nope\" not found"});
  ExpectError("current-context: x\ncontexts: [{name: x, context: {user: u}}]\n",
              {"contexts[\"x\"].context.cluster: required"});
  ExpectError("current-context: x\ncontexts: [{name: x, context: {cluster: c}}]\n",
              {"cluster \"c\" not found"});
  ExpectError(
      "current-context: x\nclusters: [{name: c, cluster: {}}]\n"
      "contexts: [{name: x, context: {cluster: c}}]\n",
      {"clusters[\"c\"].cluster.server: required"});
  ExpectError(
      "current-context: x\nclusters: [{name: c, cluster: {server: 'ftp://h'}}]\n"
      "contexts: [{name: x, context: {cluster: c}}]\n",
      {"not an http(s) URL"});
  ExpectError(
      "current-context: x\nclusters: [{name: c, cluster: {server: 'https://h', "
      "certificate-authority-data: '***'}}]\ncontexts: [{name: x, context: {cluster: c}}]\n",
      {"certificate-authority-data: invalid base64"});
  ExpectError(
      "current-context: x\nclusters: [{name: c, cluster: {server: 'https://h', "
      "certificate-authority: /no/such/ca.crt}}]\ncontexts: [{name: x, context: {cluster: c}}]\n",
      {"certificate-authority: cannot read /no/such/ca.crt"});
  ExpectError(
      "current-context: x\nclusters: [{name: c, cluster: {server: 'https://h', "
      "insecure-skip-tls-verify: true, certificate-authority-data: QQ==}}]\n"
      "contexts: [{name: x, context: {cluster: c}}]\n",
      {"cannot be combined"});
  ExpectError(
      "current-context: x\nclusters: [{name: c, cluster: {server: 'https://h'}}]\n"
      "contexts: [{name: x, context: {cluster: c, user: u}}]\n",
      {"user \"u\" not found"});
  ExpectError(
      "current-context: x\nclusters: [{name: c, cluster: {server: 'https://h'}}]\n"
      "users: [{name: u, user: {client-certificate-data: QQ==}}]\n"
      "contexts: [{name: x, context: {cluster: c, user: u}}]\n",
      {"users[\"u\"].user", "must be given together"});
  ExpectError(
      "current-context: x\nclusters: [{name: c, cluster: {server: 'https://h'}}]\n"
      "users: [{name: u, user: {exec: {command: aws}}}]\n"
      "contexts: [{name: x, context: {cluster: c, user: u}}]\n",
      {"users[\"u\"].user.exec: not supported"});
  ExpectError(
      "current-context: x\nclusters: [{name: c, cluster: {server: 'https://h'}}]\n"
      "users: [{name: u, user: {tokenFile: /no/token}}]\n"
      "contexts: [{name: x, context: {cluster: c, user: u}}]\n",
      {"tokenFile: cannot read /no/token"});
  ExpectError("clusters: {c: 1}\n", {"clusters is not a list"});
  ExpectError("clusters: [{cluster: {server: 'https://h'}}]\n", {"clusters[0].name: required"});
  ExpectError(
      "current-context: x\nclusters: [{name: c, cluster: {server: [1]}}]\n"
      "contexts: [{name: x, context: {cluster: c}}]\n",
      {"server: must be a string"});
  EXPECT_THROW(LoadKubeconfig({dir_ + "/absent"}), ConfigError);
  EXPECT_THROW(LoadKubeconfig({}), ConfigError);
}

class InClusterTest : public KubeconfigTest {
 protected:
  void SetUp() override {
    KubeconfigTest::SetUp();
    Write("token", "token-1");
    Write("ca.crt", "CLUSTER CA");
    Write("namespace", "gpupool-system\n");
    setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1", 1);
    setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  }
  void TearDown() override {
    unsetenv("KUBERNETES_SERVICE_HOST");
    unsetenv("KUBERNETES_SERVICE_PORT");
    KubeconfigTest::TearDown();
  }
};

TEST_F(InClusterTest, ReadsServiceAccountFiles) {
  RestConfig config = InClusterConfig({dir_});
  EXPECT_EQ(config.server, "https://10.0.0.1:443");
  EXPECT_EQ(config.ca_pem, "CLUSTER CA");
  EXPECT_EQ(config.token_file, dir_ + "/token");
  EXPECT_EQ(config.default_namespace, "gpupool-system");
}

TEST_F(InClusterTest, BracketsIpv6Hosts) {
  setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
  EXPECT_EQ(InClusterConfig({dir_}).server, "https://[fd00::1]:443");
}

TEST_F(InClusterTest, MissingPiecesAreClearErrors) {
  unsetenv("KUBERNETES_SERVICE_PORT");
  EXPECT_THROW(InClusterConfig({dir_}), ConfigError);
  setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  std::filesystem::remove(dir_ + "/ca.crt");
  try {
    InClusterConfig({dir_});
    ADD_FAILURE();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("ca.crt"), std::string::npos);
  }
  std::filesystem::remove(dir_ + "/token");
  EXPECT_THROW(InClusterConfig({dir_}), ConfigError);
}

TEST(Base64, DecodesAndRejects) {
  EXPECT_EQ(DecodeBase64("aGVsbG8="), "hello");
  EXPECT_EQ(DecodeBase64("aGVs\nbG8h"), "hello!");
  EXPECT_THROW(DecodeBase64("a$b"), std::invalid_argument);
  EXPECT_THROW(DecodeBase64("aGVsbG8=x"), std::invalid_argument);
  EXPECT_THROW(DecodeBase64("a"), std::invalid_argument);
}

}  // namespace
}  // namespace gpupool::kube
