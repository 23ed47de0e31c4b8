#include <mimalloc.h>

#include <iostream>
#include <string>
#include <vector>

#include "gpupool/common/command.h"

namespace {

void PrintUsage(std::ostream& out) {
  out << "gpupool: a Kubernetes operator that pools GPUs for data-science teams\n\n"
         "Usage: gpupool <command> [flags]\n\nCommands:\n";
  for (const auto& command : gpupool::cli::AllCommands()) {
    constexpr std::size_t kNameWidth = 16;
    const std::size_t pad = command.name.size() < kNameWidth ? kNameWidth - command.name.size() : 1;
    out << "  " << command.name << std::string(pad, ' ') << command.summary << "\n";
  }
  out << "\nRun 'gpupool <command> --help' for the flags of a command.\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // The controller gives freed pages back to the system at once: a delayed
  // decommit runs only when a later allocation looks, so a controller that went
  // quiet after a burst kept the burst's memory (docs/development.md).
  if (!args.empty() && args[0] == "controller") mi_option_set(mi_option_decommit_delay, 0);
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    PrintUsage(std::cout);
    return args.empty() ? 2 : 0;
  }
  for (const auto& command : gpupool::cli::AllCommands()) {
    if (command.name == args[0]) {
      return command.run(gpupool::cli::Args(args).subspan(1));
    }
  }
  std::cerr << "gpupool: unknown command \"" << args[0] << "\"\n\n";
  PrintUsage(std::cerr);
  return 2;
}
