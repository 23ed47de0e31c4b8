// ControllerMetrics: what one or more recorded cycles look like in the
// exposition text.
#include "gpupool/metrics/controller_metrics.h"

#include <gtest/gtest.h>

#include "view_builder.h"

namespace gpupool::metrics {
namespace {

using op::testing::ViewBuilder;

bool HasLine(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

CycleMetrics TwoProjects(double joe_allocated) {
  CycleMetrics cycle;
  cycle.projects[{"train", "susan"}] = {2, 6, 4, 0};
  cycle.projects[{"train", "joe"}] = {2, joe_allocated, 0, 1};
  cycle.queues["train"] = {4, 6 + joe_allocated, 8};
  return cycle;
}

TEST(ControllerMetrics, GaugesCarryTheCyclesGpus) {
  ControllerMetrics metrics("1.2.3");
  metrics.RecordCycle(TwoProjects(0.5), {});
  const std::string text = metrics.Text();
  EXPECT_TRUE(HasLine(text, R"(gpupool_project_over_quota_gpus{project="susan",queue="train"} 4)"))
      << text;
  EXPECT_TRUE(HasLine(text, R"(gpupool_project_allocated_gpus{project="joe",queue="train"} 0.5)"));
  EXPECT_TRUE(HasLine(text, R"(gpupool_queue_capacity_gpus{queue="train"} 8)"));
  EXPECT_EQ(text.find("gpupool_department_allocated_gpus{"), std::string::npos);  // None.
  EXPECT_TRUE(HasLine(text, R"(gpupool_build_info{version="1.2.3"} 1)"));
  EXPECT_TRUE(HasLine(text, "gpupool_leader 1"));
}

TEST(ControllerMetrics, DepartmentGaugesCarryTheirProjectsGpusTogether) {
  ControllerMetrics metrics("test");
  CycleMetrics cycle = TwoProjects(1);
  cycle.departments[{"train", "research"}] = {3, 7, 4, 1};
  metrics.RecordCycle(cycle, {});
  const std::string text = metrics.Text();
  EXPECT_TRUE(
      HasLine(text, R"(gpupool_department_over_quota_gpus{department="research",queue="train"} 4)"))
      << text;
  EXPECT_TRUE(HasLine(
      text, R"(gpupool_department_guaranteed_gpus{department="research",queue="train"} 3)"));
  metrics.RecordCycle(TwoProjects(1), {});  // The department was deleted.
  EXPECT_EQ(metrics.Text().find("gpupool_department_over_quota_gpus{"), std::string::npos);
}

TEST(ControllerMetrics, DeletedProjectsAndQueuesSeriesDisappear) {
  ControllerMetrics metrics("test");
  metrics.RecordCycle(TwoProjects(1), {});
  ASSERT_NE(metrics.Text().find(R"(project="joe")"), std::string::npos);
  CycleMetrics without_joe;
  without_joe.projects[{"build", "susan"}] = {1, 1, 0, 0};
  without_joe.queues["build"] = {1, 1, 2};
  metrics.RecordCycle(without_joe, {});
  const std::string text = metrics.Text();
  EXPECT_EQ(text.find(R"(project="joe")"), std::string::npos) << text;
  EXPECT_EQ(text.find(R"(queue="train")"), std::string::npos) << text;
  EXPECT_TRUE(HasLine(text, R"(gpupool_project_allocated_gpus{project="susan",queue="build"} 1)"));
}

TEST(ControllerMetrics, CountersAddUpAcrossCyclesAndHistogramsObserve) {
  ControllerMetrics metrics("test");
  CycleMetrics cycle;
  cycle.admissions[{"train", "joe", "Train"}] = 2;
  cycle.preemptions[{"train", "susan", "reclaim"}] = 2;
  cycle.queue_waits = {{"joe", "Train", 90}, {"joe", "Train", 7200}};
  op::CycleReport report;
  report.plan_ms = 3;
  report.write_ms = 40;
  metrics.RecordCycle(cycle, report);
  metrics.RecordCycle(cycle, report);
  const std::string text = metrics.Text();
  EXPECT_TRUE(HasLine(
      text, R"(gpupool_admissions_total{project="joe",queue="train",workload_class="Train"} 4)"))
      << text;
  EXPECT_TRUE(HasLine(
      text, R"(gpupool_preemptions_total{project="susan",queue="train",reason="reclaim"} 4)"));
  EXPECT_TRUE(HasLine(
      text,
      R"(gpupool_queue_wait_seconds_bucket{project="joe",workload_class="Train",le="120"} 2)"));
  EXPECT_TRUE(HasLine(
      text,
      R"(gpupool_queue_wait_seconds_bucket{project="joe",workload_class="Train",le="86400"} 4)"));
  EXPECT_TRUE(HasLine(text, R"(gpupool_cycle_duration_seconds_count{stage="plan"} 2)"));
  EXPECT_TRUE(HasLine(text, R"(gpupool_cycle_duration_seconds_bucket{stage="write",le="0.05"} 2)"));
}

TEST(ControllerMetrics, ClientTrafficAndLeadership) {
  ControllerMetrics metrics("test");
  bool leading = false;
  metrics.SetLeaderSource([&] { return leading; });
  metrics.OnRequest({"GET", 200, 0.002});
  metrics.OnRequest({"PATCH", 409, 0.004});
  metrics.OnRequest({"GET", 0, 5});
  metrics.OnWatchRestart("pods");
  std::string text = metrics.Text();
  EXPECT_TRUE(HasLine(text, R"(gpupool_api_requests_total{code="200",verb="GET"} 1)")) << text;
  EXPECT_TRUE(HasLine(text, R"(gpupool_api_requests_total{code="409",verb="PATCH"} 1)"));
  EXPECT_TRUE(HasLine(text, R"(gpupool_api_requests_total{code="error",verb="GET"} 1)"));
  EXPECT_TRUE(HasLine(text, R"(gpupool_api_request_duration_seconds_count{verb="GET"} 2)"));
  EXPECT_TRUE(HasLine(text, R"(gpupool_watch_restarts_total{resource="pods"} 1)"));
  EXPECT_TRUE(HasLine(text, "gpupool_leader 0"));
  leading = true;
  EXPECT_TRUE(HasLine(metrics.Text(), "gpupool_leader 1"));
}

TEST(ControllerMetrics, RecordsARealCycle) {
  ViewBuilder b(1'800'000'000);
  b.Node("node-0", 4, "train").Queue("train", "train").Project("susan", "susan", 2);
  b.Job("susan", "a", 1, 1);
  const op::Plan plan = op::PlanCycle(b.view(), {});
  ControllerMetrics metrics("test");
  metrics.RecordCycle(ComputeCycleMetrics(b.view(), plan, AllWritten(plan)), {});
  const std::string text = metrics.Text();
  EXPECT_TRUE(HasLine(text, R"(gpupool_jobs{phase="Admitted"} 1)")) << text;
  EXPECT_TRUE(HasLine(text, R"(gpupool_jobs{phase="Failed"} 0)"));
  EXPECT_TRUE(HasLine(text, R"(gpupool_project_guaranteed_gpus{project="susan",queue="train"} 2)"));
}

}  // namespace
}  // namespace gpupool::metrics
