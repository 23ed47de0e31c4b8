// The chart passes `helm lint`, strict too, with its defaults and with every
// optional part on; bad values fail lint and template with a message naming
// the value.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <ostream>

#include "install_files.h"

namespace gpupool::install::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kEverythingOn[] =
    "--set metrics.serviceMonitor.enabled=true --set dashboard.enabled=true "
    "--set priorityClasses.create=false --set leaderElection.enabled=false --set replicas=1 "
    "--set networkPolicy.enabled=true --set metrics.certSecret=gpupool-metrics-tls";

TEST(ChartLint, PassesWithDefaults) {
  SKIP_WITHOUT_HELM();
  auto result = Helm(std::string("lint ") + kChart);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  result = Helm(std::string("lint --strict ") + kChart);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("0 chart(s) failed"));
}

TEST(ChartLint, PassesStrictWithEveryOptionalPartOn) {
  SKIP_WITHOUT_HELM();
  auto result = Helm(std::string("lint --strict ") + kChart + " " + kEverythingOn);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  result = Helm(std::string("template gpupool ") + kChart + " " + kEverythingOn);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("kind: ServiceMonitor"));
  EXPECT_THAT(result.output, HasSubstr("grafana_dashboard: \"1\""));
  EXPECT_THAT(result.output, ::testing::Not(HasSubstr("kind: PriorityClass")));
  // Leader election off: no Lease Role.
  EXPECT_THAT(result.output, ::testing::Not(HasSubstr("-leader-election\n")));
  // Secure metrics with a certificate from a Secret: mounted for the
  // controller, and the ServiceMonitor verifies it by the Secret's CA.
  EXPECT_THAT(result.output, HasSubstr("scheme: https"));
  EXPECT_THAT(result.output, HasSubstr("- --metrics-cert-dir\n"));
  EXPECT_THAT(result.output, HasSubstr("secretName: \"gpupool-metrics-tls\""));
  EXPECT_THAT(result.output, HasSubstr("key: ca.crt"));
  EXPECT_THAT(result.output, ::testing::Not(HasSubstr("--leader-elect")));
}

// A check across two values is the templates' `fail`, which `helm lint`
// reports without failing: `helm template` (and so install) is what refuses it.
TEST(ChartValues, OnePortForMetricsAndProbesFailsTemplateNamingTheValue) {
  SKIP_WITHOUT_HELM();
  const auto result =
      Helm(std::string("template gpupool ") + kChart + " --set healthProbe.port=8080");
  EXPECT_NE(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output,
              HasSubstr("healthProbe.port: 8080 is metrics.port too; the probes need a port of "
                        "their own"));
}

struct BadValue {
  std::string set;       // helm --set argument
  std::string expected;  // what the error must say, naming the value
};

// Test names show the --set argument, not the struct's bytes.
void PrintTo(const BadValue& bad, std::ostream* out) { *out << bad.set; }

class ChartBadValues : public ::testing::TestWithParam<BadValue> {};

TEST_P(ChartBadValues, FailTemplateAndLintNamingTheValue) {
  SKIP_WITHOUT_HELM();
  const BadValue& bad = GetParam();
  auto result = Helm(std::string("template gpupool ") + kChart + " --set " + bad.set);
  EXPECT_NE(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr(bad.expected));
  result = Helm(std::string("lint --strict ") + kChart + " --set " + bad.set);
  EXPECT_NE(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr(bad.expected));
}

INSTANTIATE_TEST_SUITE_P(
    Values, ChartBadValues,
    ::testing::Values(
        BadValue{"replicas=two", "replicas: Invalid type. Expected: integer, given: string"},
        BadValue{"replicas=-1", "replicas: Must be greater than or equal to 0"},
        BadValue{"logFormat=xml", "logFormat: logFormat must be one of the following"},
        BadValue{"logLevel=verbose", "logLevel: logLevel must be one of the following"},
        BadValue{"leaderElection.leaseDurationSeconds=1",
                 "leaderElection.leaseDurationSeconds: Must be greater than or equal to 3"},
        BadValue{"burst=0", "burst: Must be greater than or equal to 1"},
        BadValue{"startTimeoutSeconds=90000",
                 "startTimeoutSeconds: Must be less than or equal to 86400"},
        BadValue{"pausePerPlan=-1", "pausePerPlan: Must be greater than or equal to 0"},
        BadValue{"waitingPods=never", "waitingPods: waitingPods must be one of the following"},
        BadValue{"metrics.port=70000", "metrics.port: Must be less than or equal to 65535"},
        BadValue{"healthProbe.port=0", "healthProbe.port: Must be greater than or equal to 1"},
        BadValue{"gpuMetrics.url=dcgm:9400", "gpuMetrics.url: Does not match pattern"},
        BadValue{"gpuMetrics.intervalSeconds=0",
                 "gpuMetrics.intervalSeconds: Must be greater than or equal to 1"},
        BadValue{"image.pullPolicy=Sometimes", "image.pullPolicy: image.pullPolicy must be one of"},
        BadValue{"metrics.serviceMonitor.enabled=yes",
                 "metrics.serviceMonitor.enabled: Invalid type. Expected: boolean"},
        BadValue{"networkPolicy.enabled=yes",
                 "networkPolicy.enabled: Invalid type. Expected: boolean"},
        BadValue{"replicaCount=3", "Additional property replicaCount is not allowed"},
        BadValue{"leaderElection.enabled=false", "replicas: Must be less than or equal to 1"}),
    [](const auto& info) {
      std::string name = info.param.set;
      for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

}  // namespace
}  // namespace gpupool::install::testing
