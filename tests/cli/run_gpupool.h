// Runs the built `gpupool` binary as a user would, and scratch files for it.
#pragma once

#include <string>

namespace gpupool::cli::testing {

struct Result {
  int exit_code;
  std::string output;  // stdout and stderr together
};

// `gpupool <arguments>` through the shell.
Result RunGpupool(const std::string& arguments);

// `script` run by bash (not sh: process substitution, arrays), from a file.
Result RunShell(const std::string& script);

// A fresh directory under /tmp, removed with everything in it at scope exit.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return path_; }
  // Writes `text` to `name` inside the directory and returns the file's path.
  std::string Write(const std::string& name, const std::string& text) const;

 private:
  std::string path_;
};

}  // namespace gpupool::cli::testing
