# Compiles the CRDs of crds/ into gpupool_cli, so that `gpupool validate` checks
# objects against the schemas this build serves, wherever the binary is run from.
file(GLOB gpupool_crd_files CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/crds/*.yaml)
# An edited CRD re-runs the configure step, which regenerates the source below.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${gpupool_crd_files})

set(gpupool_crd_source "// Generated from crds/ by controller/cli/embed_crds.cmake.\n")
string(APPEND gpupool_crd_source "#include \"embedded_crds.h\"\n\nnamespace gpupool::cli {\n\n")
string(APPEND gpupool_crd_source "const std::vector<std::string_view>& EmbeddedCrdTexts() {\n")
string(APPEND gpupool_crd_source "  static const std::vector<std::string_view> texts = {\n")
foreach(crd_file IN LISTS gpupool_crd_files)
  file(READ ${crd_file} crd_text)
  string(FIND "${crd_text}" ")crd\"" delimiter_at)
  if(NOT delimiter_at EQUAL -1)
    message(FATAL_ERROR "${crd_file} contains )crd\" and cannot be embedded as a raw string")
  endif()
  string(APPEND gpupool_crd_source "      R\"crd(${crd_text})crd\",\n")
endforeach()
string(APPEND gpupool_crd_source "  };\n  return texts;\n}\n\n}  // namespace gpupool::cli\n")

# Written through a copy so that an unchanged text keeps its timestamp (no rebuild).
set(gpupool_crd_cpp ${CMAKE_CURRENT_BINARY_DIR}/embedded_crds.cpp)
file(WRITE ${gpupool_crd_cpp}.new "${gpupool_crd_source}")
configure_file(${gpupool_crd_cpp}.new ${gpupool_crd_cpp} COPYONLY)
target_sources(gpupool_cli PRIVATE ${gpupool_crd_cpp})
target_include_directories(gpupool_cli PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
