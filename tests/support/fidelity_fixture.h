// Requests sent as raw HTTP to every backend, each test in a namespace of its
// own: what a real kube-apiserver refuses or answers in its own way, where a
// sandbox more lenient than it would let a controller pass here and break on
// a cluster.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "fidelity_util.h"
#include "test_cluster.h"

namespace gpupool::backends::testing {

using sandbox::testing::CauseFields;
using sandbox::testing::ConfigMapJson;
using sandbox::testing::GpuPodJson;
using sandbox::testing::ReadWatchEvents;
using sandbox::testing::Reply;
using sandbox::testing::Send;
using sandbox::testing::SendRaw;

class FidelityOnBackend : public ::testing::TestWithParam<std::string> {
 protected:
  // Skips without the backend; otherwise makes the test's namespace (named
  // after the test) and, on a real server, waits for its `default`
  // ServiceAccount, without which pods are refused, and its kube-root-ca.crt
  // ConfigMap.
  void SetUp() override;
  // Deletes the test's pods at once and its namespace: a pod left pending
  // would be scheduled onto the nodes a later test starts.
  void TearDown() override;

  // /api/v1/namespaces/<ns_>/<resource>
  std::string CorePath(const std::string& resource) const;
  // Writes `text` to a file in the cluster's folder and returns its path.
  std::string WriteFile(const std::string& name, const std::string& text) const;

  TestCluster* cluster_ = nullptr;
  std::unique_ptr<httplib::Client> client_;
  std::string ns_;
};

// The parameter names of a suite run on every backend.
std::string BackendParamName(const ::testing::TestParamInfo<std::string>& info);

}  // namespace gpupool::backends::testing
