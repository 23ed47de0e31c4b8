#include <iostream>

#include "gpupool/common/command.h"
#include "gpupool/replay/options.h"
#include "gpupool/replay/runner.h"

namespace gpupool::cli {

int RunReplay(Args args) {
  replay::ReplayOptions options;
  try {
    options = replay::ParseReplayArgs(args);
  } catch (const replay::UsageError& error) {
    std::cerr << "gpupool replay: " << error.what() << "\n\n" << replay::kReplayUsage;
    return 2;
  }
  if (options.help) {
    std::cout << replay::kReplayUsage;
    return 0;
  }
  return replay::RunReplay(options, std::cout, std::cerr);
}

}  // namespace gpupool::cli
