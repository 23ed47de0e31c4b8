// The arguments of the commands that act on one TrainingJob (describe, delete,
// logs, suspend, resume): NAME and the cluster flags, plus the command's own.
#pragma once

#include <functional>
#include <set>
#include <stdexcept>
#include <string>

#include "cluster_flags.h"
#include "gpupool/common/command.h"
#include "gpupool/kube/errors.h"

namespace gpupool::cli {

struct JobTarget {
  ClusterFlags cluster;
  std::string name;
};

// Reads args[i] (and its value) when it is one of the command's own flags;
// returns false for any other argument.
using OwnFlagReader = std::function<bool(Args args, std::size_t& i)>;

// UsageError for a missing NAME, a second one, -A or an unknown flag.
JobTarget ParseJobTarget(Args args, const std::set<std::string>& formats,
                         const OwnFlagReader& own = {});

// Whether `error` says that TrainingJob `name` does not exist (not that the
// server does not serve TrainingJobs at all).
bool IsNoSuchJob(const kube::ApiError& error, const std::string& name);
// The sentence for a job that does not exist, with the command that lists those that do.
std::string NoSuchJob(const std::string& ns, const std::string& name);

// What `request` on TrainingJob `name` in `ns` returns; the server's
// NotFound for the job becomes NoSuchJob's sentence.
template <typename Request>
auto OnJob(const std::string& ns, const std::string& name, Request request) {
  try {
    return request();
  } catch (const kube::ApiError& error) {
    if (!IsNoSuchJob(error, name)) throw;
    throw std::runtime_error(NoSuchJob(ns, name));
  }
}

}  // namespace gpupool::cli
