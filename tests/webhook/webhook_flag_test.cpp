// `gpupool controller`'s --webhook-* flags, run as a process: bad values are
// usage errors naming the flag, and the usage text lists every one.
#include <gtest/gtest.h>

#include "sandbox_process.h"

namespace gpupool::webhook {
namespace {

using sandbox::testing::RunCommand;

const std::string kGpupoolBinary = GPUPOOL_BINARY;

TEST(WebhookFlags, BadValuesAreUsageErrorsNamingTheFlag) {
  const std::pair<const char*, const char*> cases[] = {
      {"--webhook-bind-address", "9443"},
      {"--webhook-host", "gpupool webhook"},
      {"--webhook-host", "a,,b"},
      {"--webhook-host", "https://gpupool"},
      {"--webhook-secret", "Not_A_Name"},
      {"--webhook-namespace", "UPPER"},
      {"--webhook-configuration", ""},
      {"--webhook-record-writer", ""},
      {"--webhook-cert-dir", "/nonexistent-gpupool-webhook-certs"},
  };
  for (const auto& [flag, bad] : cases) {
    const auto result = RunCommand(kGpupoolBinary + " controller " + flag + " '" + bad + "' 2>&1");
    EXPECT_EQ(result.exit_code, 2) << flag << " " << bad << ": " << result.output;
    EXPECT_NE(result.output.find(std::string(flag) + ": "), std::string::npos) << result.output;
  }
  const auto missing = RunCommand(kGpupoolBinary + " controller --webhook-host 2>&1");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.output.find("--webhook-host needs a value"), std::string::npos)
      << missing.output;
}

TEST(WebhookFlags, ACertDirWithoutAnAddressIsAUsageError) {
  const auto result =
      RunCommand("d=$(mktemp -d) && touch $d/tls.crt $d/tls.key && " + kGpupoolBinary +
                 " controller --webhook-cert-dir $d 2>&1; code=$?; rm -rf $d; "
                 "exit $code");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("--webhook-cert-dir: needs --webhook-bind-address"),
            std::string::npos)
      << result.output;
}

TEST(WebhookFlags, TheUsageTextListsEveryOne) {
  const auto result = RunCommand(kGpupoolBinary + " controller --help 2>&1");
  EXPECT_EQ(result.exit_code, 0);
  for (const char* flag :
       {"--webhook-bind-address", "--webhook-host", "--webhook-secret", "--webhook-namespace",
        "--webhook-configuration", "--webhook-cert-dir", "--webhook-record-writer"})
    EXPECT_NE(result.output.find(flag), std::string::npos) << flag;
}

}  // namespace
}  // namespace gpupool::webhook
