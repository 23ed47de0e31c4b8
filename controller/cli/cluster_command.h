// The frame of every command that talks to a cluster for a user: --help prints
// the usage (exit 0); flags that do not parse print the error and the usage
// (exit 2, before connecting); anything that fails after prints one line
// naming the command (exit 1).
#pragma once

#include <iostream>
#include <string_view>

#include "gpupool/common/command.h"
#include "numeric_flag.h"

namespace gpupool::cli {

// `parse(args)` returns the flags or throws UsageError; `run(flags)` returns
// the exit code or throws.
template <typename Parse, typename Run>
int RunClusterCommand(std::string_view command, std::string_view usage, Args args, Parse parse,
                      Run run) {
  if (WantsHelp(args)) {
    std::cout << usage;
    return 0;
  }
  decltype(parse(args)) flags;
  try {
    flags = parse(args);
  } catch (const UsageError& error) {
    std::cerr << "gpupool " << command << ": " << error.what() << "\n\n" << usage;
    return 2;
  }
  try {
    return run(flags);
  } catch (const std::exception& error) {
    std::cerr << "gpupool " << command << ": " << error.what() << "\n";
    return 1;
  }
}

}  // namespace gpupool::cli
