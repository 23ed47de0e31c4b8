#include "gpupool/replay/options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace gpupool::replay {
namespace {

using ::testing::HasSubstr;

ReplayOptions Parse(std::vector<std::string> args) { return ParseReplayArgs(args); }

std::string ErrorOf(std::vector<std::string> args) {
  try {
    Parse(std::move(args));
  } catch (const UsageError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(ReplayOptionsTest, Defaults) {
  const auto options = Parse({"--trace", "philly"});
  EXPECT_EQ(options.trace, TraceKind::kPhilly);
  EXPECT_EQ(options.policies.size(), 2u);
  EXPECT_EQ(options.shape.TotalGpus(), 480);
  EXPECT_EQ(options.seed, 42u);
  EXPECT_DOUBLE_EQ(options.arrive_percent, 130);
  EXPECT_FALSE(options.json);
}

TEST(ReplayOptionsTest, EveryFlagInBothForms) {
  const auto options = Parse({"--trace=alibaba",
                              "--json",
                              "--svg-dir",
                              "out",
                              "--policy=guaranteed",
                              "--nodes",
                              "4",
                              "--gpus-per-node=2",
                              "--max-jobs",
                              "100",
                              "--cycle-seconds",
                              "0",
                              "--min-runtime-seconds",
                              "600",
                              "--full-cycle-interval-seconds",
                              "3600",
                              "--seed",
                              "7",
                              "--arrive-percent",
                              "90.5",
                              "--pod-list",
                              "p.csv",
                              "--trace-dir",
                              "/t"});
  EXPECT_EQ(options.trace, TraceKind::kAlibaba);
  EXPECT_TRUE(options.json);
  EXPECT_EQ(options.svg_dir, "out");
  EXPECT_EQ(options.policies, std::vector<QuotaPolicy>{QuotaPolicy::kGuaranteed});
  EXPECT_EQ(options.shape.nodes, 4);
  EXPECT_EQ(options.shape.gpus_per_node, 2);
  EXPECT_EQ(options.max_jobs, 100);
  EXPECT_EQ(options.cycle_seconds, 0);
  EXPECT_EQ(options.min_runtime_seconds, 600);
  EXPECT_EQ(options.full_cycle_interval_seconds, 3600);
  EXPECT_EQ(options.seed, 7u);
  EXPECT_DOUBLE_EQ(options.arrive_percent, 90.5);
  EXPECT_EQ(options.pod_list, "p.csv");
  EXPECT_EQ(options.trace_dir, "/t");
}

TEST(ReplayOptionsTest, PoliciesAsAListInTheOrderGiven) {
  EXPECT_EQ(Parse({"--trace", "philly", "--policy", "pooled,static,guaranteed"}).policies,
            (std::vector<QuotaPolicy>{QuotaPolicy::kPooled, QuotaPolicy::kStatic,
                                      QuotaPolicy::kGuaranteed}));
  EXPECT_EQ(Parse({"--trace", "philly", "--policy", "both"}).policies,
            (std::vector<QuotaPolicy>{QuotaPolicy::kStatic, QuotaPolicy::kGuaranteed}));
  EXPECT_EQ(Parse({"--trace", "philly", "--policy=pooled"}).policies,
            std::vector<QuotaPolicy>{QuotaPolicy::kPooled});
}

TEST(ReplayOptionsTest, BadFlagsNameTheFlag) {
  EXPECT_THAT(ErrorOf({}), HasSubstr("--trace: required"));
  EXPECT_THAT(ErrorOf({"--trace", "borg"}), HasSubstr("--trace: expected philly or alibaba"));
  EXPECT_THAT(ErrorOf({"--trace", "philly", "--nodes", "x"}),
              HasSubstr("--nodes: expected an integer >= 1, got \"x\""));
  EXPECT_THAT(ErrorOf({"--trace", "philly", "--nodes", "0"}), HasSubstr("--nodes"));
  EXPECT_THAT(ErrorOf({"--trace", "philly", "--nodes", "100000000"}),
              HasSubstr("--nodes: expected an integer from 1 to 100000, got \"100000000\""));
  EXPECT_THAT(ErrorOf({"--trace", "philly", "--cycle-seconds", "1e300"}),
              HasSubstr("--cycle-seconds: expected a number from 0 to 86400, got \"1e300\""));
  EXPECT_THAT(ErrorOf({"--trace", "alibaba", "--arrive-percent", "1e9"}),
              HasSubstr("--arrive-percent: expected a number from 1 to 1000, got \"1e9\""));
  EXPECT_EQ(Parse({"--trace", "philly", "--cycle-seconds", "86400"}).cycle_seconds, 86400);
  EXPECT_THAT(ErrorOf({"--trace", "philly", "--nodes", "4294967297"}),
              HasSubstr("--nodes: expected an integer from 1 to 100000"));
  EXPECT_THAT(ErrorOf({"--trace", "philly", "--policy", "fair"}),
              HasSubstr("--policy: expected static, guaranteed, pooled, both or a "
                        "comma-separated list of the first three, got \"fair\""));
  EXPECT_THAT(ErrorOf({"--trace", "philly", "--policy", "static,"}),
              HasSubstr("--policy: expected static, guaranteed, pooled"));
  EXPECT_THAT(ErrorOf({"--trace", "philly", "--policy", "static,both"}),
              HasSubstr("got \"static,both\""));
  EXPECT_THAT(ErrorOf({"--trace", "philly", "--policy", "pooled,static,pooled"}),
              HasSubstr("--policy: \"pooled\" is named twice in \"pooled,static,pooled\""));
  EXPECT_THAT(ErrorOf({"--trace", "philly", "--order", "shortest"}),
              HasSubstr("--order: expected arrival or fewest-gpus, got \"shortest\""));
  EXPECT_THAT(ErrorOf({"--trace", "philly", "--order"}), HasSubstr("--order: missing value"));
  EXPECT_THAT(ErrorOf({"--trace", "philly", "--frobnicate"}),
              HasSubstr("--frobnicate: unknown flag"));
  EXPECT_THAT(ErrorOf({"--trace", "philly", "--seed"}), HasSubstr("--seed: missing value"));
  EXPECT_THAT(ErrorOf({"--trace", "philly", "--cycle-seconds", "-1"}),
              HasSubstr("--cycle-seconds: expected a number >= 0"));
  EXPECT_THAT(ErrorOf({"--trace", "philly", "--full-cycle-interval-seconds", "-5"}),
              HasSubstr("--full-cycle-interval-seconds: expected an integer >= 0, got \"-5\""));
  EXPECT_TRUE(Parse({"--help"}).help);
}

TEST(ReplayOptionsTest, PreemptionAndSweepFlags) {
  const auto options =
      Parse({"--trace", "philly", "--victim-policy", "both", "--checkpoint-interval-seconds",
             "1800", "--reclaim-wait-seconds=600", "--reclaim-max-runtime-seconds", "3600",
             "--immediate-guarantee-percent", "25", "--sweep-nodes", "60:80:10",
             "--sweep-wait-hours", "1,6.5"});
  EXPECT_EQ(options.victim_policies,
            (std::vector<engine::VictimPolicy>{engine::VictimPolicy::kLeastWorkLost,
                                               engine::VictimPolicy::kFewestVictims}));
  EXPECT_EQ(options.checkpoint_interval_seconds, 1800);
  EXPECT_EQ(options.reclaim_wait_seconds, 600);
  EXPECT_EQ(options.reclaim_max_runtime_seconds, 3600);
  EXPECT_EQ(options.immediate_guarantee_percent, 25);
  EXPECT_EQ(options.sweep_nodes, (std::vector<int>{60, 70, 80}));
  EXPECT_EQ(options.sweep_wait_hours, (std::vector<double>{1, 6.5}));
  EXPECT_EQ(Parse({"--trace", "philly"}).victim_policies,
            std::vector<engine::VictimPolicy>{engine::VictimPolicy::kLeastWorkLost});
  EXPECT_EQ(Parse({"--trace", "philly"}).order, JobOrder::kArrival);
  EXPECT_EQ(Parse({"--trace", "philly", "--order", "fewest-gpus"}).order, JobOrder::kFewestGpus);
  EXPECT_EQ(Parse({"--trace", "philly", "--order=arrival"}).order, JobOrder::kArrival);
}

TEST(ReplayOptionsTest, BadPreemptionAndSweepFlagsNameTheFlag) {
  EXPECT_THAT(ErrorOf({"--trace", "philly", "--victim-policy", "oldest"}),
              HasSubstr("--victim-policy: expected least-work-lost, fewest-victims or both"));
  EXPECT_THAT(ErrorOf({"--trace", "philly", "--checkpoint-interval-seconds", "-1"}),
              HasSubstr("--checkpoint-interval-seconds: expected an integer >= 0"));
  EXPECT_THAT(ErrorOf({"--trace", "philly", "--reclaim-wait-seconds", "x"}),
              HasSubstr("--reclaim-wait-seconds: expected an integer >= 0"));
  EXPECT_THAT(ErrorOf({"--trace", "philly", "--reclaim-max-runtime-seconds", "-5"}),
              HasSubstr("--reclaim-max-runtime-seconds: expected an integer >= 0"));
  EXPECT_THAT(ErrorOf({"--trace", "philly", "--immediate-guarantee-percent", "101"}),
              HasSubstr("--immediate-guarantee-percent: expected an integer from 0 to 100"));
  EXPECT_THAT(ErrorOf({"--trace", "philly", "--sweep-nodes", "60-80"}),
              HasSubstr("--sweep-nodes: expected FROM:TO:STEP"));
  EXPECT_THAT(ErrorOf({"--trace", "philly", "--sweep-nodes", "80:60:10"}),
              HasSubstr("--sweep-nodes: expected an integer >= 80"));
  EXPECT_THAT(ErrorOf({"--trace", "philly", "--sweep-nodes", "60:80:0"}),
              HasSubstr("--sweep-nodes: expected an integer >= 1"));
  EXPECT_THAT(ErrorOf({"--trace", "philly", "--sweep-nodes", "20:1000000000:1"}),
              HasSubstr("--sweep-nodes: TO is at most 100000 nodes"));
  EXPECT_THAT(ErrorOf({"--trace", "philly", "--sweep-nodes", "1:1001:1"}),
              HasSubstr("--sweep-nodes: at most 1000 cluster sizes (a larger STEP gives fewer)"));
  EXPECT_EQ(Parse({"--trace", "philly", "--sweep-nodes", "1:1000:1"}).sweep_nodes.size(), 1000u);
  EXPECT_THAT(ErrorOf({"--trace", "philly", "--sweep-wait-hours", "1,0"}),
              HasSubstr("--sweep-wait-hours: expected hours > 0"));
}

// A node's devices are a 64-bit mask in the engine: a larger node would be modelled
// wrong, so it is refused.
TEST(ReplayOptionsTest, RefusesNodesLargerThanTheEngineModels) {
  EXPECT_EQ(Parse({"--trace", "philly", "--gpus-per-node", "64"}).shape.gpus_per_node, 64);
  EXPECT_THAT(ErrorOf({"--trace", "philly", "--gpus-per-node", "65"}),
              HasSubstr("--gpus-per-node: at most 64"));
  EXPECT_THAT(ErrorOf({"--trace", "philly", "--gpus-per-node=1000"}),
              HasSubstr("--gpus-per-node: at most 64"));
}

TEST(ReplayOptionsTest, UsageDocumentsEveryFlag) {
  for (const char* flag : {"--trace ",
                           "--trace-dir",
                           "--json",
                           "--svg-dir",
                           "--policy",
                           "--nodes",
                           "--gpus-per-node",
                           "--max-jobs",
                           "--cycle-seconds",
                           "--min-runtime-seconds",
                           "--full-cycle-interval-seconds",
                           "--pod-list",
                           "--seed",
                           "--arrive-percent",
                           "--victim-policy",
                           "--checkpoint-interval-seconds",
                           "--reclaim-wait-seconds",
                           "--reclaim-max-runtime-seconds",
                           "--immediate-guarantee-percent",
                           "--sweep-nodes",
                           "--sweep-wait-hours"}) {
    EXPECT_THAT(std::string(kReplayUsage), HasSubstr(flag));
  }
}

}  // namespace
}  // namespace gpupool::replay
