// The rows of `gpupool projects` and `gpupool queues`: the statuses' figures,
// and the utilization of the GPUs held, weighted by GPUs.
#include "quota_rows.h"

#include <gtest/gtest.h>

#include <sstream>

namespace gpupool::cli {
namespace {

using Json = nlohmann::json;

Json Job(const std::string& project, const std::string& gpus, std::optional<int> percent) {
  Json job = {
      {"spec", {{"queue", "train"}}},
      {"status", {{"project", project}, {"admittedQueue", "train"}, {"allocatedGpu", gpus}}}};
  if (percent) job["status"]["gpuUtilizationPercent"] = *percent;
  return job;
}

TEST(QuotaRows, ProjectsShowTheirQueuesAndTheUtilizationOfWhatTheyHold) {
  const std::vector<Json> projects = {Json::parse(R"({"metadata": {"name": "susan"},
      "status": {"queues": [{"queue": "train", "guaranteed": "2", "allocated": "4",
        "overQuota": "2", "pending": "1", "runningJobs": 3, "pendingJobs": 1}]}})"),
                                      Json::parse(R"({"metadata": {"name": "joe"}})")};
  const std::vector<Json> jobs = {Job("susan", "3", 80), Job("susan", "1", 0),
                                  Job("susan", "2", std::nullopt), Job("joe", "1", 50)};
  const auto rows = ProjectRows(projects, jobs);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].project, "susan");
  EXPECT_EQ(rows[0].allocated, "4");
  EXPECT_EQ(rows[0].over_quota, "2");
  EXPECT_EQ(rows[0].running_jobs, 3);
  EXPECT_EQ(rows[0].waiting_jobs, 1);
  EXPECT_EQ(rows[0].utilization_percent, 60);  // (3 x 80 + 1 x 0) / 4
  std::ostringstream table;
  PrintQuotaTable(rows, true, table);
  EXPECT_NE(table.str().find("PROJECT   QUEUE   GUARANTEED"), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("60%"), std::string::npos) << table.str();
  EXPECT_EQ(QuotaRowsJson(rows, true)[0]["gpuUtilizationPercent"], 60);
}

TEST(QuotaRows, QueuesShowCapacityAndAllTheirJobs) {
  const std::vector<Json> queues = {Json::parse(R"({"metadata": {"name": "train"},
      "spec": {"sharing": "Guaranteed"}, "status": {"capacity": "8", "allocated": "5",
        "runningJobs": 4, "pendingJobs": 2}})"),
                                    Json::parse(R"({"metadata": {"name": "build"}})")};
  const auto rows = QueueRows(queues, {Job("susan", "3", 80), Job("joe", "1", 40)});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].queue, "build");
  EXPECT_EQ(rows[0].capacity, "0");
  EXPECT_FALSE(rows[0].utilization_percent);
  EXPECT_EQ(rows[1].capacity, "8");
  EXPECT_EQ(rows[1].waiting_jobs, 2);
  EXPECT_EQ(rows[1].utilization_percent, 70);  // (3 x 80 + 1 x 40) / 4
  EXPECT_TRUE(QuotaRowsJson(rows, false)[0]["gpuUtilizationPercent"].is_null());
}

}  // namespace
}  // namespace gpupool::cli
