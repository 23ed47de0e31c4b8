// `gpupool controller` reads its flags as Kubernetes binaries do: a value as
// `--flag VALUE` or `--flag=VALUE`, a switch as `--flag`, `--flag=true` or
// `--flag=false`. Every case here stops at the flags, before any connection.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "run_gpupool.h"

namespace gpupool::cli::testing {
namespace {

using ::testing::HasSubstr;

TEST(ControllerFlags, ASwitchWithAValueOtherThanTrueOrFalseIsAUsageError) {
  for (const char* flag : {"--leader-elect", "--skip-priority-classes", "--metrics-secure"}) {
    const auto result = RunGpupool(std::string("controller ") + flag + "=maybe");
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_THAT(result.output,
                HasSubstr(std::string(flag) + ": expected true or false, got \"maybe\""));
  }
}

TEST(ControllerFlags, ASwitchSetToFalseIsOffAndToTrueIsOn) {
  ScratchDir dir;
  dir.Write("tls.crt", "");
  dir.Write("tls.key", "");
  const auto off = RunGpupool("controller --metrics-secure=false --metrics-cert-dir " + dir.path());
  EXPECT_EQ(off.exit_code, 2) << off.output;
  EXPECT_THAT(off.output, HasSubstr("--metrics-cert-dir: needs --metrics-secure"));
  const auto on = RunGpupool("controller --metrics-secure=true --metrics-cert-dir=/nonexistent");
  EXPECT_EQ(on.exit_code, 2) << on.output;
  EXPECT_THAT(on.output, HasSubstr("--metrics-cert-dir: cannot read \"/nonexistent/tls.crt\""));
}

TEST(ControllerFlags, AValueAfterAnEqualsSignIsCheckedLikeOneAfterASpace) {
  const auto port = RunGpupool("controller --metrics-bind-address=:99999");
  EXPECT_EQ(port.exit_code, 2) << port.output;
  EXPECT_THAT(port.output, HasSubstr("--metrics-bind-address: port \"99999\" is not a number"));
  const auto level = RunGpupool("controller --log-level=loud");
  EXPECT_EQ(level.exit_code, 2) << level.output;
  EXPECT_THAT(level.output, HasSubstr("--log-level: \"loud\" is not one of"));
  const auto webhook = RunGpupool("controller --webhook-bind-address=nonsense");
  EXPECT_EQ(webhook.exit_code, 2) << webhook.output;
  EXPECT_THAT(webhook.output, HasSubstr("--webhook-bind-address: "));
}

}  // namespace
}  // namespace gpupool::cli::testing
