// The text of every CRD in crds/, compiled in by embed_crds.cmake.
#pragma once

#include <string_view>
#include <vector>

namespace gpupool::cli {

// One YAML document per CRD file, in file-name order.
const std::vector<std::string_view>& EmbeddedCrdTexts();

}  // namespace gpupool::cli
