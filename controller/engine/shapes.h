// Interned job shapes. Jobs that ask for the same thing under the same constraints
// share an id, so the cycle's memos ("this shape found no room") are integer
// lookups instead of string keys.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

namespace gpupool::engine::internal {

struct JobState;

class ShapeTable {
 public:
  // Where a job may run: queue, devices per replica, node selector, GPU models and
  // required topology key. Jobs with one constraint id have one eligible node set.
  int ConstraintOf(const JobState& job);
  // The constraint plus the exact replica request and topology mode: jobs with one
  // shape id fit (or do not fit) in exactly the same places.
  int ShapeOf(const JobState& job);
  // The shape plus replicas, minimum and workload class: of two pending jobs of one
  // project and group, the later one cannot start where the earlier one cannot.
  int GroupOf(const JobState& job);
  int constraint_count() const { return constraint_count_; }

  // Integer fields of a shape or group key, hashed as one.
  struct Fields {
    std::int64_t a, b, c, d, e;
    bool operator==(const Fields&) const = default;
  };
  struct FieldsHash {
    std::size_t operator()(const Fields& f) const;
  };

 private:
  // Ids are numbered in the order constraints are first seen. Those of jobs with
  // no selector, no model list and no required topology are keyed by queue and
  // devices per replica alone; those with a model list by their fields as raw bytes.
  int constraint_count_ = 0;
  std::unordered_map<std::uint64_t, int> plain_constraints_;
  std::unordered_map<std::string, int> constraints_;
  // Jobs with a selector but no model list: keyed by queue, devices per replica, the
  // selector's interned copy (equal selectors share one) and the required topology
  // key's number, without building a string.
  std::unordered_map<Fields, int, FieldsHash> selector_constraints_;
  std::unordered_map<std::string, int> topology_keys_;  // Topology label keys, numbered.
  int TopologyKeyNumber(const std::string& key);
  // Shapes: integer fields, the topology key by its number.
  std::unordered_map<Fields, int, FieldsHash> shapes_;
  int shape_count_ = 0;
  std::unordered_map<Fields, int, FieldsHash> groups_;
};

}  // namespace gpupool::engine::internal
