// Placement quality on the Alibaba GPU 2023 trace ("openb"), the experiment of the
// ATC'23 fragmentation paper: tasks drawn at random (seeded) from the default task
// list arrive one by one, none leaves, until their GPU requests total 130 % of the
// cluster's GPUs. Each arrival is one engine cycle; a task that does not fit is
// dropped. Prints allocated milli-GPUs / capacity as arrivals grow, for the
// fragmentation-aware packer and for plain best-fit, side by side.
//
//   engine_alibaba_packing [seed]        (trace dir: $GPUPOOL_TRACE_DIR)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gpupool/engine/engine.h"

namespace {

using namespace gpupool::engine;

std::vector<std::vector<std::string>> ReadCsv(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // Header.
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream fields(line);
    std::string cell;
    while (std::getline(fields, cell, ',')) cells.push_back(cell);
    rows.push_back(std::move(cells));
  }
  return rows;
}

struct Task {
  ReplicaShape shape;
  std::vector<std::string> models;
};

std::vector<Task> LoadTasks(const std::string& dir) {
  std::vector<Task> tasks;
  for (const auto& row : ReadCsv(dir + "/openb_pod_list_default.csv")) {
    Task task;
    int gpus = std::stoi(row[3]);
    MilliGpu milli = std::stoll(row[4]);
    task.shape.cpu_milli = std::stoll(row[1]);
    task.shape.memory_bytes = std::stoll(row[2]) << 20;
    task.shape.gpu_milli = gpus == 1 ? milli : gpus * kMilliPerGpu;
    if (row.size() > 5 && !row[5].empty()) {
      std::stringstream models(row[5]);
      std::string model;
      while (std::getline(models, model, '|')) task.models.push_back(model);
    }
    tasks.push_back(task);
  }
  return tasks;
}

Snapshot LoadCluster(const std::string& dir) {
  Snapshot snapshot;
  for (const auto& row : ReadCsv(dir + "/openb_node_list_gpu_node.csv")) {
    Node node;
    node.name = row[0];
    node.cpu_milli = std::stoll(row[1]);
    node.memory_bytes = std::stoll(row[2]) << 20;
    node.gpus = std::stoi(row[3]);
    node.gpu_model = row.size() > 4 ? row[4] : "";
    snapshot.nodes.push_back(std::move(node));
  }
  Queue queue;
  queue.name = "openb";
  snapshot.queues.push_back(queue);
  snapshot.projects.push_back({"tenant", 0, {{"openb", 0, -1, 1, -1, -1}}});
  return snapshot;
}

std::vector<WorkloadShape> Distribution(const std::vector<Task>& tasks) {
  std::map<std::tuple<MilliGpu, MilliCpu, Bytes>, double> counts;
  for (const Task& t : tasks) {
    counts[{t.shape.gpu_milli, t.shape.cpu_milli, t.shape.memory_bytes}] += 1;
  }
  std::vector<WorkloadShape> shapes;
  for (const auto& [key, count] : counts) {
    shapes.push_back({{std::get<0>(key), std::get<1>(key), std::get<2>(key)}, count});
  }
  return shapes;
}

struct Run {
  std::vector<double> allocated_at;  // Ratio after each 10 % of capacity arrived.
  double final_ratio = 0;
  double seconds = 0;
};

Run Replay(const Snapshot& cluster, const std::vector<Task>& sample, MilliGpu capacity,
           Options options) {
  Engine engine(cluster, std::move(options));
  Run run;
  MilliGpu arrived = 0;
  MilliGpu allocated = 0;
  double next_mark = 0.1;
  auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < sample.size(); ++i) {
    PendingJob job;
    char name[32];
    std::snprintf(name, sizeof name, "t%zu", i);
    job.name = name;
    job.queue = "openb";
    job.project = "tenant";
    job.shape = sample[i].shape;
    job.gpu_models = sample[i].models;
    job.arrival_time = static_cast<Seconds>(i);
    engine.SetNow(static_cast<Seconds>(i));
    engine.AddPending(job);
    Decisions d = engine.Decide();
    if (d.admissions.empty()) {
      engine.Finish(job.name);  // Did not fit: dropped, as in the paper.
    } else {
      allocated += job.shape.gpu_milli;
    }
    arrived += job.shape.gpu_milli;
    while (arrived >= next_mark * static_cast<double>(capacity) && next_mark < 1.31) {
      run.allocated_at.push_back(static_cast<double>(allocated) / static_cast<double>(capacity));
      next_mark += 0.1;
    }
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.final_ratio = static_cast<double>(allocated) / static_cast<double>(capacity);
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  const char* env = std::getenv("GPUPOOL_TRACE_DIR");
  std::string dir =
      std::string(env ? env : GPUPOOL_SOURCE_DIR "/../shared/traces") + "/alibaba-gpu-2023";
  unsigned seed = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 42;
  std::vector<Task> tasks = LoadTasks(dir);
  if (tasks.empty()) {
    std::printf("skipped: no trace at %s (set GPUPOOL_TRACE_DIR)\n", dir.c_str());
    return 0;
  }
  Snapshot cluster = LoadCluster(dir);
  MilliGpu capacity = 0;
  for (const Node& n : cluster.nodes) capacity += n.gpus * kMilliPerGpu;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> pick(0, tasks.size() - 1);
  std::vector<Task> sample;
  MilliGpu requested = 0;
  while (requested * 10 < capacity * 13) {
    sample.push_back(tasks[pick(rng)]);
    requested += sample.back().shape.gpu_milli;
  }
  Options aware;
  aware.expected_workload = Distribution(tasks);
  Options best_fit;
  best_fit.packing = Packing::kBestFit;
  Run ours = Replay(cluster, sample, capacity, aware);
  Run plain = Replay(cluster, sample, capacity, best_fit);
  std::printf("nodes %zu, GPUs %lld, tasks %zu (seed %u)\n", cluster.nodes.size(),
              static_cast<long long>(capacity / kMilliPerGpu), sample.size(), seed);
  std::printf("arrived%%  fragmentation-aware  best-fit\n");
  for (std::size_t i = 0; i < ours.allocated_at.size() && i < plain.allocated_at.size(); ++i) {
    std::printf("%7zu%%  %18.1f%%  %7.1f%%\n", (i + 1) * 10, 100 * ours.allocated_at[i],
                100 * plain.allocated_at[i]);
  }
  std::printf("final     %18.1f%%  %7.1f%%\n", 100 * ours.final_ratio, 100 * plain.final_ratio);
  std::printf("seconds   %18.2f   %7.2f\n", ours.seconds, plain.seconds);
  return 0;
}
