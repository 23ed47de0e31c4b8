// Where `gpupool submit` puts a job: the namespace of its project and the
// queue its project has a quota in, or the reason it is refused before
// anything is created (an unknown project, a queue without the project's
// quota, more GPUs than the queue could ever give).
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "submit_request.h"

namespace gpupool::cli {

// A refusal naming the flag to change and what to change it to.
class SubmitRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SubmitTarget {
  std::string ns;
  std::string queue;
};

// `projects` and `queues` are the cluster's Project and Queue objects as listed.
SubmitTarget ResolveTarget(const SubmitRequest& request,
                           const std::vector<nlohmann::json>& projects,
                           const std::vector<nlohmann::json>& queues);

// Levenshtein distance: the single-character edits that turn a into b.
std::size_t EditDistance(const std::string& a, const std::string& b);

// The name in `names` closest to `name` (at most 2 edits away), or "".
std::string ClosestName(const std::string& name, const std::vector<std::string>& names);

}  // namespace gpupool::cli
