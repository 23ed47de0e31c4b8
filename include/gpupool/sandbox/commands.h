// The sandbox's subcommands of the `gpupool` binary: its one public header,
// included by the cli's command table (sandbox/sandbox_command.cpp and
// sandbox/nodes/simulate_nodes_command.cpp define them).
#pragma once

#include "gpupool/common/command.h"

namespace gpupool::cli {

int RunSandbox(Args args);        // `gpupool sandbox`
int RunSimulateNodes(Args args);  // `gpupool simulate-nodes`

}  // namespace gpupool::cli
