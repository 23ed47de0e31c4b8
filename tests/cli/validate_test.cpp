// `gpupool validate` agrees with the API server, field by field, and says what
// it checked.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "run_gpupool.h"

namespace gpupool::cli::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string TrainingJob(const std::string& spec_extra, const std::string& gpus_per_replica = "1") {
  return "apiVersion: gpupool.dev/v1alpha1\nkind: TrainingJob\n"
         "metadata: {name: a, namespace: susan}\n"
         "spec:\n  queue: train\n  gpusPerReplica: " +
         gpus_per_replica + "\n" + spec_extra +
         "  template: {spec: {containers: [{name: c, image: trainer}]}}\n";
}

// Lines of the output that report one error (they are indented).
int ErrorLines(const std::string& output) {
  int lines = 0;
  for (size_t at = output.find("\n  "); at != std::string::npos; at = output.find("\n  ", at + 1)) {
    ++lines;
  }
  return lines;
}

TEST(Validate, SaysWhatItCheckedForAValidObject) {
  ScratchDir dir;
  auto result = RunGpupool("validate " + dir.Write("x.yaml", TrainingJob("")));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(
      result.output,
      HasSubstr("x.yaml: TrainingJob susan/a: valid (checked against: CRD schema, CEL rules, "
                "gpupool rules)"));
  EXPECT_THAT(result.output, HasSubstr("1 file: 1 valid, 0 invalid, 0 skipped"));
}

TEST(Validate, KnowsDepartmentsAndTheProjectsThatNameThem) {
  ScratchDir dir;
  auto file = dir.Write("d.yaml",
                        "apiVersion: gpupool.dev/v1alpha1\nkind: Department\n"
                        "metadata: {name: research}\n"
                        "spec: {quotas: [{queue: train, gpu: 32, limit: 16, overQuotaWeigth: 2}]}\n"
                        "---\n"
                        "apiVersion: gpupool.dev/v1alpha1\nkind: Project\n"
                        "metadata: {name: vision}\n"
                        "spec: {namespaces: [vision], department: research,\n"
                        "       quotas: [{queue: train, gpu: 8}]}\n");
  auto result = RunGpupool("validate " + file);
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_THAT(result.output, HasSubstr("Department research: INVALID"));
  EXPECT_THAT(result.output, HasSubstr("  spec.quotas[0].limit: must be >= gpu\n"));
  EXPECT_THAT(result.output,
              HasSubstr("  spec.quotas[0].overQuotaWeigth: unknown field, did you mean "
                        "overQuotaWeight?\n"));
  EXPECT_THAT(result.output, HasSubstr("Project vision: valid"));
}

// The API server refuses both (fieldValidation=Strict, kubectl's default);
// without the check they were pruned silently and the job said "valid".
TEST(Validate, MisspelledFieldsAreUnknownFields) {
  ScratchDir dir;
  auto file = dir.Write("x.yaml", TrainingJob("  replica: 4\n  gpuMemory: 40Gi\n"));
  auto result = RunGpupool("validate " + file);
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_THAT(result.output,
              HasSubstr("TrainingJob susan/a: INVALID, 2 errors (checked against: CRD schema, CEL "
                        "rules, gpupool rules)\n"));
  EXPECT_THAT(result.output, HasSubstr("  spec.replica: unknown field, did you mean replicas?\n"));
  EXPECT_THAT(result.output, HasSubstr("  spec.gpuMemory: unknown field\n"));
}

TEST(Validate, UnknownFieldsInMetadataAndTemplateFollowTheServer) {
  ScratchDir dir;
  std::string job = TrainingJob("");
  job.replace(job.find("namespace:"), 10, "namesapce:");
  // The pod template's metadata keeps unknown fields (the CRD preserves them).
  job.replace(job.find("template: {"), 11, "template: {metadata: {extra: 1}, ");
  auto result = RunGpupool("validate " + dir.Write("x.yaml", job));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_THAT(result.output,
              HasSubstr("  metadata.namesapce: unknown field, did you mean namespace?"));
  EXPECT_THAT(result.output, Not(HasSubstr("extra")));
  EXPECT_EQ(ErrorLines(result.output), 1) << result.output;
}

TEST(Validate, AFinerThanMilliFractionGetsExactlyOneError) {
  ScratchDir dir;
  auto result = RunGpupool("validate " + dir.Write("x.yaml", TrainingJob("", "\"0.0001\"")));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_THAT(result.output,
              HasSubstr("spec.gpusPerReplica: must be a whole number of milli-units"));
  EXPECT_THAT(result.output, Not(HasSubstr("must be > 0")));
  EXPECT_EQ(ErrorLines(result.output), 1) << result.output;
}

TEST(Validate, ASchemaErrorAndGpupoolsOwnAreOneErrorPerField) {
  ScratchDir dir;
  auto result = RunGpupool("validate " + dir.Write("x.yaml", TrainingJob("  replicas: 0\n")));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_THAT(result.output, HasSubstr("  spec.replicas: must be >= 1\n"));
  EXPECT_EQ(ErrorLines(result.output), 1) << result.output;
}

TEST(Validate, AMisspelledKindOfTheGroupIsInvalidOtherGroupsAreSkipped) {
  ScratchDir dir;
  std::string job = TrainingJob("");
  job.replace(job.find("TrainingJob"), 11, "TrainingJb");
  auto file =
      dir.Write("x.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: susan}\n---\n" + job);
  auto result = RunGpupool("validate " + file);
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_THAT(result.output,
              HasSubstr("Namespace susan: skipped (apiVersion v1 is not gpupool.dev)"));
  EXPECT_THAT(result.output, HasSubstr("TrainingJb susan/a: INVALID"));
  EXPECT_THAT(result.output, HasSubstr("kind: no kind \"TrainingJb\" is served by gpupool.dev"));
}

TEST(Validate, AnUnservedVersionIsInvalid) {
  ScratchDir dir;
  std::string job = TrainingJob("");
  job.replace(job.find("v1alpha1"), 8, "v1");
  auto result = RunGpupool("validate " + dir.Write("x.yaml", job));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_THAT(result.output, HasSubstr("apiVersion: gpupool.dev/v1 is not served"));
}

TEST(Validate, AnEmptyFileIsAnInputError) {
  ScratchDir dir;
  auto result = RunGpupool("validate " + dir.Write("empty.yaml", "# nothing yet\n---\n"));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_THAT(result.output, HasSubstr("empty.yaml: no objects (the file is empty)"));
}

TEST(Validate, AFolderWithoutManifestsIsAnInputError) {
  ScratchDir dir;
  dir.Write("notes.txt", "not a manifest\n");
  auto result = RunGpupool("validate " + dir.path());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_THAT(result.output, HasSubstr(dir.path() + ": no .yaml, .yml or .json files to check"));
}

TEST(Validate, AMissingFileIsAnInputErrorAndTheOthersAreStillChecked) {
  ScratchDir dir;
  auto good = dir.Write("good.yaml", TrainingJob(""));
  auto result = RunGpupool("validate " + dir.path() + "/missing.yaml " + good);
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_THAT(result.output, HasSubstr("missing.yaml: cannot read file"));
  EXPECT_THAT(result.output, HasSubstr("good.yaml: TrainingJob susan/a: valid"));
  EXPECT_THAT(result.output, HasSubstr("1 file: 1 valid, 0 invalid, 0 skipped; 1 input error"));
}

TEST(Validate, InputsThatAreNotYamlAreNamedAndCounted) {
  ScratchDir dir;
  // Ten levels of ten aliases each: 10^10 values once expanded.
  std::string aliases = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (char level = '1'; level <= '9'; ++level) {
    const std::string below = std::string("*a").append(1, static_cast<char>(level - 1));
    aliases.append("a").append(1, level).append(": &a").append(1, level).append(" [").append(below);
    for (int j = 1; j < 10; ++j) aliases.append(", ").append(below);
    aliases.append("]\n");
  }
  auto laughs = dir.Write("laughs.yaml", aliases);
  auto deep = dir.Write("deep.json", std::string(100000, '[') + std::string(100000, ']'));
  auto result = RunGpupool("validate " + laughs + " " + deep);
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_THAT(result.output, HasSubstr("laughs.yaml: aliases expand to too many values"));
  EXPECT_THAT(result.output, HasSubstr("deep.json:1: nested deeper than the YAML parser reads"));
  EXPECT_THAT(result.output, HasSubstr("0 files: 0 valid, 0 invalid, 0 skipped; 2 input errors"));
}

TEST(Validate, ObjectsOfAListAreCheckedOneByOne) {
  ScratchDir dir;
  auto list =
      "apiVersion: v1\nkind: List\nitems:\n- apiVersion: gpupool.dev/v1alpha1\n"
      "  kind: Queue\n  metadata: {name: train}\n  spec: {sharing: Shared}\n";
  auto result = RunGpupool("validate " + dir.Write("list.yaml", list));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_THAT(result.output, HasSubstr("Queue train: INVALID"));
  EXPECT_THAT(result.output, HasSubstr("spec.sharing: must be one of Fixed, Guaranteed"));
}

}  // namespace
}  // namespace gpupool::cli::testing
