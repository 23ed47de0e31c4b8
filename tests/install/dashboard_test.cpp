// The Grafana dashboard: valid JSON, every panel a query of the series the
// controller exports under exactly these names, and shipped by the chart.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "install_files.h"

namespace gpupool::install::testing {
namespace {

using Json = nlohmann::json;
using ::testing::HasSubstr;

const std::set<std::string> kSeries = {
    "gpupool_project_guaranteed_gpus",   "gpupool_project_allocated_gpus",
    "gpupool_project_over_quota_gpus",   "gpupool_project_pending_gpus",
    "gpupool_project_gpu_utilization",   "gpupool_queue_allocated_gpus",
    "gpupool_queue_guaranteed_gpus",     "gpupool_jobs",
    "gpupool_preemptions_total",         "gpupool_queue_wait_seconds_bucket",
    "gpupool_department_allocated_gpus", "gpupool_department_guaranteed_gpus",
    "gpupool_department_over_quota_gpus"};

std::string DashboardPath() {
  return sandbox::testing::SourcePath(std::string(kChart) + "/dashboards/gpupool.json");
}

// Every "expr" of every panel (rows hold none).
std::vector<std::string> Queries(const Json& dashboard) {
  std::vector<std::string> queries;
  for (const auto& panel : dashboard.at("panels")) {
    for (const auto& target : panel.value("targets", Json::array()))
      queries.push_back(target.at("expr").get<std::string>());
  }
  return queries;
}

TEST(Dashboard, QueriesExactlyTheControllersSeries) {
  const Json dashboard = Json::parse(ReadText(DashboardPath()));
  std::set<std::string> used;
  const std::regex series("gpupool_[a-z_]+");
  for (const auto& query : Queries(dashboard)) {
    for (std::sregex_iterator it(query.begin(), query.end(), series), end; it != end; ++it)
      used.insert(it->str());
  }
  EXPECT_EQ(used, kSeries);
}

TEST(Dashboard, HasThePanelsOperatorsNeed) {
  const Json dashboard = Json::parse(ReadText(DashboardPath()));
  std::string all;
  for (const auto& query : Queries(dashboard)) all += query + "\n";
  // Allocated vs guaranteed vs over quota, per project and per queue.
  EXPECT_THAT(all, HasSubstr("sum by (project) (gpupool_project_allocated_gpus"));
  EXPECT_THAT(all, HasSubstr("gpupool_queue_allocated_gpus{"));
  EXPECT_THAT(all, HasSubstr("sum by (queue) (gpupool_project_over_quota_gpus"));
  EXPECT_THAT(all, HasSubstr("gpupool_department_over_quota_gpus{"));
  // Allocation vs utilization side by side.
  EXPECT_THAT(all, HasSubstr("* on (queue, project) gpupool_project_gpu_utilization{"));
  EXPECT_THAT(all, HasSubstr("gpupool_jobs{phase=~\"Queued|Preempted\"}"));
  EXPECT_THAT(all, HasSubstr("histogram_quantile(0.99, sum by (le, workload_class)"));
  EXPECT_THAT(all, HasSubstr("increase(gpupool_preemptions_total"));
  std::set<int> ids;
  for (const auto& panel : dashboard.at("panels")) {
    EXPECT_TRUE(ids.insert(panel.at("id").get<int>()).second) << panel.dump();
    if (panel.at("type") != "row") {
      EXPECT_EQ(panel.at("datasource").at("uid"), "${datasource}");
    }
  }
}

TEST(Dashboard, ShipsAsAGrafanaSidecarConfigMapWhenEnabled) {
  SKIP_WITHOUT_HELM();
  auto result = Helm(std::string("template gpupool ") + kChart + " --set dashboard.enabled=true");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const YAML::Node config_map = FindObject(LoadDocuments(result.output), "ConfigMap");
  ASSERT_TRUE(config_map.IsMap()) << result.output;
  EXPECT_EQ(config_map["metadata"]["labels"]["grafana_dashboard"].as<std::string>(), "1");
  const Json shipped = Json::parse(config_map["data"]["gpupool.json"].as<std::string>());
  EXPECT_EQ(shipped, Json::parse(ReadText(DashboardPath())));
  result = Helm(std::string("template gpupool ") + kChart);
  EXPECT_FALSE(FindObject(LoadDocuments(result.output), "ConfigMap").IsMap());
}

}  // namespace
}  // namespace gpupool::install::testing
