#include "gpupool/openapi/cel.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace gpupool::openapi::cel {
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
  for (const char* rule : {"self.a * 2 > 2", "self.x.matches(self.y)", "self.x.matches('(')",
                           "self.a > 1.5", "self.items.all(i, i > 0)", "self.a ? 1 : 2"}) {
    try {
      Program::Compile(rule);
      ADD_FAILURE() << rule << " compiled";
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find("unsupported CEL rule"), std::string::npos);
    }
  }
}

// The root rules on a TrainingJob's name: a gang's name is an RFC 1035 label
// and leaves room for "-<replica>" in 63 characters.
TEST(CelTest, NameRulesOfTrainingJobs) {
  const std::string label =
      "!has(self.spec.replicas) || self.spec.replicas <= 1 || "
      "self.metadata.name.matches('^[a-z][-a-z0-9]*$')";
  const std::string room =
      "!has(self.spec.replicas) || self.spec.replicas <= 1 || "
      "size(self.metadata.name) + size(string(self.spec.replicas - 1)) < 63";
  auto job = [](const std::string& name, int replicas) {
    return Json{{"metadata", {{"name", name}}}, {"spec", {{"replicas", replicas}}}};
  };
  EXPECT_TRUE(Eval(label, job("bert", 2)));
  EXPECT_TRUE(Eval(label, job("bert.large", 1)));
  EXPECT_FALSE(Eval(label, job("bert.large", 2)));
  EXPECT_FALSE(Eval(label, job("1st-run", 2)));
  EXPECT_TRUE(Eval(room, job(std::string(61, 'a'), 10)));
  EXPECT_FALSE(Eval(room, job(std::string(61, 'a'), 11)));
  EXPECT_FALSE(Eval(room, job(std::string(62, 'a'), 2)));
  EXPECT_TRUE(Eval(room, job(std::string(63, 'a'), 1)));
}

TEST(CelTest, IntegerArithmeticAndSizes) {
  EXPECT_TRUE(Eval("self.a + 1 - 3 == 0", {{"a", 2}}));
  EXPECT_TRUE(Eval("size(self.s) == 3 && size(self.l) == 2", {{"s", "añb"}, {"l", {1, 2}}}));
  EXPECT_THROW(Eval("self.a + 1 > 0", {{"a", INT64_MAX}}), std::runtime_error);
  EXPECT_THROW(Eval("self.s + 1 > 0", {{"s", "x"}}), std::runtime_error);
}

// matches(): a tenth of the string's size times a quarter of the pattern's.
TEST(CelTest, CostOfMatchesFollowsTheStringsBound) {
  const Json schema = {{"type", "object"},
                       {"properties", {{"name", {{"type", "string"}, {"maxLength", 63}}}}}};
  const auto bounded = Program::Compile("self.name.matches('^[a-z]+$')");
  EXPECT_LT(bounded.EstimatedCost(schema), 30u);
  const auto unbounded = Program::Compile("self.other.matches('^[a-z]+$')");
  EXPECT_GE(unbounded.EstimatedCost(schema), 2 * Program::kUnboundedStringSize / 10);
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
}  // namespace gpupool::openapi::cel
