// gpupool's CRDs on a test cluster: applied once per cluster and process,
// with namespaces made as tests need them.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "test_cluster.h"

namespace gpupool::backends::testing {

// `kubectl apply -f crds/` and a wait for every CRD to be Established, once
// per cluster; then `namespace` exists. Fails the calling test (ADD_FAILURE)
// with kubectl's output when either does not work.
void EnsureCrdsAndNamespace(TestCluster& cluster, const std::string& ns);

// A test on one backend (its parameter) with the CRDs and namespace "susan" in place.
class CrdBackendTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    SKIP_WITHOUT_BACKEND(GetParam());
    cluster_ = &ClusterFor(GetParam());
    EnsureCrdsAndNamespace(*cluster_, "susan");
  }
  TestCluster* cluster_ = nullptr;
};

}  // namespace gpupool::backends::testing
