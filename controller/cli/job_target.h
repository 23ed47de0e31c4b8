// The arguments of the commands that act on one TrainingJob (describe, delete,
// logs, suspend, resume): NAME and the cluster flags, plus the command's own.
#pragma once

#include <functional>
#include <set>
#include <string>

#include "cluster_flags.h"
#include "gpupool/common/command.h"

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

}  // namespace gpupool::cli
