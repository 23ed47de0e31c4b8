#include <iostream>

#include "gpupool/common/command.h"

namespace gpupool::cli {

int RunVersion(Args args) {
  if (WantsHelp(args)) {
    std::cout << "Usage: gpupool version\n\nPrints the version of this binary.\n";
    return 0;
  }
  std::cout << "gpupool " << GPUPOOL_VERSION << " (API gpupool.dev/v1alpha1)\n";
  return 0;
}

}  // namespace gpupool::cli
