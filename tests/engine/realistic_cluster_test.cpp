// The realistic clusters the engine benchmarks run on (tests/support/realistic_cluster.h):
// each pool reaches the stated fill, and the running set is one a cluster could hold —
// checked here from the snapshot alone, not from what the builder reports.
#include "realistic_cluster.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <stdexcept>

#include "gpupool/engine/engine.h"

namespace gpupool::engine::bench {
namespace {

using ::testing::HasSubstr;

struct NodeUse {
  std::vector<MilliGpu> device;    // Milli-GPUs in use per device.
  std::vector<int> whole_holders;  // Replicas holding each device whole.
  MilliCpu cpu = 0;
  Bytes memory = 0;
};

// Adds every running replica to its node's use; fails the test on a replica that
// names no node, a device out of range, or the wrong number of devices.
std::map<std::string, NodeUse> UseFromRunning(const Snapshot& s) {
  std::map<std::string, const Node*> nodes;
  std::map<std::string, NodeUse> use;
  for (const Node& node : s.nodes) {
    nodes[node.name] = &node;
    use[node.name] = {std::vector<MilliGpu>(static_cast<std::size_t>(node.gpus), 0),
                      std::vector<int>(static_cast<std::size_t>(node.gpus), 0), 0, 0};
  }
  for (const RunningJob& job : s.running) {
    EXPECT_EQ(job.replicas.size(), static_cast<std::size_t>(job.min_replicas)) << job.name;
    bool whole = job.shape.gpu_milli >= kMilliPerGpu;
    for (const ReplicaPlacement& replica : job.replicas) {
      auto node = nodes.find(replica.node);
      if (node == nodes.end()) {
        ADD_FAILURE() << job.name << " on unknown node " << replica.node;
        continue;
      }
      std::size_t wanted = whole ? static_cast<std::size_t>(job.shape.gpu_milli / kMilliPerGpu) : 1;
      EXPECT_EQ(replica.devices.size(), wanted) << job.name;
      EXPECT_EQ(std::set<int>(replica.devices.begin(), replica.devices.end()).size(),
                replica.devices.size())
          << job.name << " lists a device twice";
      NodeUse& on = use[replica.node];
      for (int device : replica.devices) {
        if (device < 0 || device >= node->second->gpus) {
          ADD_FAILURE() << job.name << " on device " << device << " of " << replica.node;
          continue;
        }
        auto d = static_cast<std::size_t>(device);
        on.device[d] += whole ? kMilliPerGpu : job.shape.gpu_milli;
        on.whole_holders[d] += whole;
      }
      on.cpu += job.shape.cpu_milli;
      on.memory += job.shape.memory_bytes;
    }
  }
  return use;
}

RealisticCluster Build(int nodes, double fill, int departments = 0) {
  RealisticSpec spec;
  spec.nodes = nodes;
  spec.fill = fill;
  spec.departments = departments;
  return BuildRealisticCluster(spec);
}

const Queue& QueueNamed(const Snapshot& s, const std::string& name) {
  for (const Queue& queue : s.queues) {
    if (queue.name == name) return queue;
  }
  throw std::out_of_range(name);
}

TEST(RealisticCluster, EveryPoolReachesTheStatedFill) {
  for (double fill : {0.70, 0.90, 0.95}) {
    RealisticCluster cluster = Build(400, fill);
    EXPECT_EQ(FillShortfall(cluster, fill), "") << fill;
    // Recomputed from the running jobs and the queues' node selectors.
    for (const Queue& queue : cluster.snapshot.queues) {
      MilliGpu capacity = 0, allocated = 0;
      std::set<std::string> pool;
      for (const Node& node : cluster.snapshot.nodes) {
        if (node.labels.at("pool") != queue.node_selector.at("pool")) continue;
        pool.insert(node.name);
        capacity += MilliGpu{node.gpus} * kMilliPerGpu;
      }
      for (const RunningJob& job : cluster.snapshot.running) {
        for (const ReplicaPlacement& replica : job.replicas) {
          if (pool.count(replica.node)) allocated += job.shape.gpu_milli;
        }
      }
      EXPECT_GE(static_cast<double>(allocated), fill * static_cast<double>(capacity))
          << queue.name << " at fill " << fill;
    }
  }
}

TEST(RealisticCluster, PlacesNothingTwiceAndNothingBeyondANode) {
  RealisticCluster cluster = Build(1000, 0.95);
  std::map<std::string, NodeUse> use = UseFromRunning(cluster.snapshot);
  for (const Node& node : cluster.snapshot.nodes) {
    const NodeUse& on = use[node.name];
    for (std::size_t d = 0; d < on.device.size(); ++d) {
      EXPECT_LE(on.device[d], kMilliPerGpu) << node.name << " device " << d;
      EXPECT_LE(on.whole_holders[d], 1) << node.name << " device " << d;
      if (on.whole_holders[d] == 1) {
        EXPECT_EQ(on.device[d], kMilliPerGpu) << node.name << " device " << d;
      }
    }
    EXPECT_LE(on.cpu, node.cpu_milli) << node.name;
    EXPECT_LE(on.memory, node.memory_bytes) << node.name;
  }
}

TEST(RealisticCluster, JobsRunInTheirQueuesPoolAndFixedQuotasHold) {
  RealisticCluster cluster = Build(1000, 0.95);
  const Snapshot& s = cluster.snapshot;
  std::map<std::string, const Node*> nodes;
  for (const Node& node : s.nodes) nodes[node.name] = &node;
  std::map<std::string, MilliGpu> interactive_use;
  for (const RunningJob& job : s.running) {
    const Queue& queue = QueueNamed(s, job.queue);
    for (const ReplicaPlacement& replica : job.replicas) {
      EXPECT_EQ(nodes.at(replica.node)->labels.at("pool"), queue.node_selector.at("pool"))
          << job.name;
    }
    if (queue.sharing == Sharing::kFixed) {
      interactive_use[job.project] +=
          job.shape.gpu_milli * static_cast<MilliGpu>(job.replicas.size());
    } else {
      EXPECT_EQ(job.workload_class, WorkloadClass::kTrain) << job.name;
    }
  }
  for (const Project& project : s.projects) {
    MilliGpu quota = 0;
    for (const ProjectQuota& q : project.quotas) quota += q.queue == "interactive" ? q.gpu : 0;
    EXPECT_LE(interactive_use[project.name], quota) << project.name;
  }
}

TEST(RealisticCluster, NamesAndUidsAreUnique) {
  RealisticCluster cluster = Build(1000, 0.90);
  std::set<std::string> names, uids;
  for (const RunningJob& job : cluster.snapshot.running) {
    EXPECT_TRUE(names.insert(job.name).second) << job.name;
    EXPECT_TRUE(uids.insert(job.uid).second) << job.uid;
  }
  for (const PendingJob& job : cluster.snapshot.pending) {
    EXPECT_TRUE(names.insert(job.name).second) << job.name;
    EXPECT_TRUE(uids.insert(job.uid).second) << job.uid;
  }
}

TEST(RealisticCluster, HoldsTheStatedMixOfNodesAndJobs) {
  RealisticCluster cluster = Build(1000, 0.90, 20);
  const Snapshot& s = cluster.snapshot;
  std::set<std::string> models;
  std::set<int> node_sizes;
  for (const Node& node : s.nodes) {
    models.insert(node.gpu_model);
    node_sizes.insert(node.gpus);
  }
  EXPECT_EQ(models.size(), 3u);
  EXPECT_EQ(node_sizes, (std::set<int>{4, 8}));
  std::set<MilliGpu> sizes;
  std::set<int> gangs;
  for (const RunningJob& job : s.running) {
    sizes.insert(job.shape.gpu_milli);
    if (job.replicas.size() > 1) gangs.insert(static_cast<int>(job.replicas.size()));
  }
  EXPECT_EQ(sizes, (std::set<MilliGpu>{250, 500, 1000, 2000, 4000, 8000}));
  EXPECT_EQ(*gangs.begin(), 2);
  EXPECT_EQ(*gangs.rbegin(), 16);
  EXPECT_EQ(s.queues.size(), 3u);
  EXPECT_EQ(s.departments.size(), 20u);
  EXPECT_GE(s.pending.size(), 4000u);
}

TEST(RealisticCluster, TheEngineHoldsEveryRunningJobAsPlaced) {
  RealisticCluster cluster = Build(400, 0.95);
  Engine engine(cluster.snapshot);
  EXPECT_EQ(engine.running_count(), cluster.snapshot.running.size());
  EXPECT_EQ(engine.pending_count(), cluster.snapshot.pending.size());
  for (const RunningJob& job : cluster.snapshot.running) {
    EXPECT_TRUE(engine.HoldsExactly(job)) << job.name;
  }
}

TEST(RealisticCluster, TheSameSpecBuildsTheSameCluster) {
  RealisticCluster a = Build(400, 0.90), b = Build(400, 0.90);
  ASSERT_EQ(a.snapshot.running.size(), b.snapshot.running.size());
  for (std::size_t i = 0; i < a.snapshot.running.size(); ++i) {
    EXPECT_EQ(a.snapshot.running[i].name, b.snapshot.running[i].name);
    EXPECT_EQ(a.snapshot.running[i].replicas.front().node,
              b.snapshot.running[i].replicas.front().node);
  }
  EXPECT_EQ(a.snapshot.pending.size(), b.snapshot.pending.size());
}

TEST(RealisticCluster, RefusesASpecOutOfRangeNamingTheField) {
  auto error = [](auto change) {
    RealisticSpec spec;
    change(spec);
    try {
      BuildRealisticCluster(spec);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(error([](RealisticSpec& s) { s.fill = 0.5; }),
              HasSubstr("fill: must be between 0.70 and 0.95"));
  EXPECT_THAT(error([](RealisticSpec& s) { s.fill = 0.99; }), HasSubstr("fill:"));
  EXPECT_THAT(error([](RealisticSpec& s) { s.nodes = 3; }), HasSubstr("nodes:"));
  EXPECT_THAT(error([](RealisticSpec& s) { s.projects = 2; }), HasSubstr("projects:"));
  EXPECT_THAT(error([](RealisticSpec& s) { s.departments = -1; }), HasSubstr("departments:"));
  EXPECT_THAT(error([](RealisticSpec& s) { s.pending_per_node = -1; }),
              HasSubstr("pending_per_node:"));
}

}  // namespace
}  // namespace gpupool::engine::bench
