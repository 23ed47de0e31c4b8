#include "fidelity_fixture.h"

#include <cctype>
#include <chrono>
#include <fstream>
#include <thread>

namespace gpupool::backends::testing {
namespace {

// The test's name as a DNS-1123 label: "OwnerReferencesNeedUid/v1_30_14" →
// "ownerreferencesneeduid".
std::string NamespaceForCurrentTest() {
  std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  name = name.substr(0, name.find('/'));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name.substr(0, 50);
}

// Whether `path` exists within 10 s.
bool WaitForObject(httplib::Client& client, const std::string& path) {
  for (int attempt = 0; attempt < 200; ++attempt) {
    if (Send(client, "GET", path).status == 200) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

}  // namespace

void FidelityOnBackend::SetUp() {
  SKIP_WITHOUT_BACKEND(GetParam());
  cluster_ = &ClusterFor(GetParam());
  client_ = cluster_->Http();
  ns_ = NamespaceForCurrentTest();
  const Json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns_}}}};
  const Reply created = Send(*client_, "POST", "/api/v1/namespaces", ns);
  ASSERT_EQ(created.status, 201) << created.body;
  // On a real server, controllers add these to every new namespace: a test
  // that starts before they have would see them appear (a quiet watch would not be).
  if (cluster_->real()) {
    ASSERT_TRUE(WaitForObject(*client_, CorePath("serviceaccounts/default")))
        << "no ServiceAccount default in " << ns_ << " after 10 s";
    ASSERT_TRUE(WaitForObject(*client_, CorePath("configmaps/kube-root-ca.crt")))
        << "no ConfigMap kube-root-ca.crt in " << ns_ << " after 10 s";
  }
}

void FidelityOnBackend::TearDown() {
  if (!client_ || ns_.empty()) return;
  Send(*client_, "DELETE", CorePath("pods?gracePeriodSeconds=0"));
  Send(*client_, "DELETE", "/api/v1/namespaces/" + ns_);
}

std::string FidelityOnBackend::CorePath(const std::string& resource) const {
  return "/api/v1/namespaces/" + ns_ + "/" + resource;
}

std::string FidelityOnBackend::WriteFile(const std::string& name, const std::string& text) const {
  const std::string path = cluster_->dir() + "/" + ns_ + "-" + name;
  std::ofstream(path) << text;
  return path;
}

std::string BackendParamName(const ::testing::TestParamInfo<std::string>& info) {
  return BackendTestName(info.param);
}

}  // namespace gpupool::backends::testing
