#include "sandbox/cel.h"

#include <gtest/gtest.h>

namespace gpupool::sandbox::cel {
namespace {

using Json = nlohmann::json;

bool Eval(const std::string& rule, const Json& self) {
  return Program::Compile(rule).Evaluate(self);
}

TEST(CelTest, QuotaRulesOfProjects) {
  const std::string sign = "quantity(string(self.gpu)).sign() >= 0";
  EXPECT_TRUE(Eval(sign, {{"gpu", 2}}));
  EXPECT_TRUE(Eval(sign, {{"gpu", "0.5"}}));
  EXPECT_FALSE(Eval(sign, {{"gpu", "-1"}}));
  const std::string limit =
      "!has(self.limit) || quantity(string(self.limit)).compareTo(quantity(string(self.gpu))) >= 0";
  EXPECT_TRUE(Eval(limit, {{"gpu", 2}}));
  EXPECT_TRUE(Eval(limit, {{"gpu", 2}, {"limit", "2500m"}}));
  EXPECT_FALSE(Eval(limit, {{"gpu", "1.5"}, {"limit", 1}}));
}

TEST(CelTest, ReplicaAndFractionRulesOfTrainingJobs) {
  EXPECT_TRUE(
      Eval("!has(self.minReplicas) || self.minReplicas <= self.replicas", {{"replicas", 2}}));
  EXPECT_FALSE(Eval("!has(self.minReplicas) || self.minReplicas <= self.replicas",
                    {{"replicas", 2}, {"minReplicas", 3}}));
  EXPECT_TRUE(
      Eval("quantity(string(self.gpusPerReplica)).sign() > 0", {{"gpusPerReplica", "0.5"}}));
  EXPECT_FALSE(Eval("quantity(string(self.gpusPerReplica)).sign() > 0", {{"gpusPerReplica", 0}}));
  const std::string fraction =
      "quantity(string(self.gpusPerReplica)).isInteger() || "
      "(quantity(string(self.gpusPerReplica)).isLessThan(quantity('1')) && self.replicas == 1)";
  EXPECT_TRUE(Eval(fraction, {{"gpusPerReplica", 2}, {"replicas", 4}}));
  EXPECT_TRUE(Eval(fraction, {{"gpusPerReplica", "0.5"}, {"replicas", 1}}));
  EXPECT_FALSE(Eval(fraction, {{"gpusPerReplica", "0.5"}, {"replicas", 2}}));
  EXPECT_FALSE(Eval(fraction, {{"gpusPerReplica", "1.5"}, {"replicas", 1}}));
}

TEST(CelTest, UnsupportedRulesAreRejectedWhenCompiled) {
  for (const char* rule : {"self.a + 1 > 2", "size(self.items) > 0", "self.x.matches('a')",
                           "self.a > 1.5", "self.items.all(i, i > 0)", "self.a ? 1 : 2"}) {
    try {
      Program::Compile(rule);
      ADD_FAILURE() << rule << " compiled";
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find("unsupported CEL rule"), std::string::npos);
    }
  }
}

TEST(CelTest, EvaluationErrorsAreReported) {
  EXPECT_THROW(Eval("self.missing > 1", Json::object()), std::runtime_error);
  EXPECT_THROW(Eval("quantity(string(self.gpu)).sign() > 0", {{"gpu", "lots"}}),
               std::runtime_error);
  EXPECT_THROW(Eval("self.a", {{"a", 1}}), std::runtime_error);
}

}  // namespace
}  // namespace gpupool::sandbox::cel
