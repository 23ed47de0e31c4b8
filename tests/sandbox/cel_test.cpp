#include "sandbox/cel.h"

#include <gtest/gtest.h>

namespace gpupool::sandbox::cel {
namespace {

using Json = nlohmann::json;

bool Eval(const std::string& rule, const Json& self) {
  return Program::Compile(rule).Evaluate(self);
}

TEST(CelTest, QuotaRulesOfProjects) {
  const std::string positive = "quantity(string(self.gpu)).isGreaterThan(quantity('0'))";
  EXPECT_TRUE(Eval(positive, {{"gpu", 2}}));
  EXPECT_TRUE(Eval(positive, {{"gpu", "0.5"}}));
  EXPECT_FALSE(Eval(positive, {{"gpu", "-1"}}));
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
  const std::string positive = "quantity(string(self.gpusPerReplica)).isGreaterThan(quantity('0'))";
  EXPECT_TRUE(Eval(positive, {{"gpusPerReplica", "0.5"}}));
  EXPECT_FALSE(Eval(positive, {{"gpusPerReplica", 0}}));
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

// No tested Kubernetes (1.29 to 1.32) offers Quantity.sign() to CRD rules: its
// API server refuses a CRD whose rule calls it.
TEST(CelTest, FunctionsTheServersLackAreRefusedNamingThem) {
  try {
    Program::Compile("quantity(string(self.gpu)).sign() >= 0");
    ADD_FAILURE() << "sign() compiled";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("no matching overload for 'sign'"), std::string::npos)
        << error.what();
  }
}

// The figures the API server's estimate gives (1.30 and later): a quantity()
// parse and a string() conversion cost a tenth of the largest string each may
// read, 3 MiB when nothing bounds it.
TEST(CelTest, CostOfAQuantityParseFollowsTheStringsBound) {
  const Json int_or_string = {{"x-kubernetes-int-or-string", true}, {"maxLength", 64}};
  const Json bounded = {{"type", "string"}, {"maxLength", 64}};
  const Json schema = {{"type", "object"},
                       {"properties", {{"gpu", int_or_string}, {"text", bounded}}}};
  const auto parse_gpu = Program::Compile("quantity(string(self.gpu)).isInteger()");
  const auto parse_text = Program::Compile("quantity(self.text).isInteger()");
  EXPECT_GE(parse_gpu.EstimatedCost(schema), 2 * Program::kUnboundedStringSize / 10);
  EXPECT_LT(parse_gpu.EstimatedCost(schema), 2 * Program::kUnboundedStringSize / 10 + 10);
  EXPECT_LT(parse_text.EstimatedCost(schema), 20u);
  const auto compare = Program::Compile(
      "!has(self.limit) || quantity(string(self.limit)).compareTo(quantity(string(self.gpu))) >= "
      "0");
  EXPECT_GE(compare.EstimatedCost(schema), 4 * Program::kUnboundedStringSize / 10)
      << "an unknown field (limit) is unbounded too";
}

TEST(CelTest, EvaluationErrorsAreReported) {
  EXPECT_THROW(Eval("self.missing > 1", Json::object()), std::runtime_error);
  EXPECT_THROW(Eval("quantity(string(self.gpu)).isInteger()", {{"gpu", "lots"}}),
               std::runtime_error);
  EXPECT_THROW(Eval("self.a", {{"a", 1}}), std::runtime_error);
}

}  // namespace
}  // namespace gpupool::sandbox::cel
