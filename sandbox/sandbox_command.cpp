#include <iostream>
#include <stdexcept>
#include <vector>

#include "gpupool/sandbox/commands.h"
#include "sandbox.h"

namespace gpupool::cli {

int RunSandbox(Args args) {
  if (WantsHelp(args)) {
    std::cout << sandbox::UsageText();
    return 0;
  }
  try {
    const auto options = sandbox::ParseOptions(std::vector<std::string>(args.begin(), args.end()));
    return sandbox::Run(options);
  } catch (const std::invalid_argument& error) {
    std::cerr << "gpupool sandbox: " << error.what() << "\n";
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "gpupool sandbox: " << error.what() << "\n";
    return 1;
  }
}

}  // namespace gpupool::cli
