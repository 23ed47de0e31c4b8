# Shared build helpers: every module, test suite and benchmark is declared
# through these so warnings, include paths and dependencies stay uniform.

function(gpupool_find_dependencies)
  find_package(Threads REQUIRED)
  find_package(nlohmann_json 3.10 REQUIRED)
  find_package(yaml-cpp REQUIRED)
  find_package(fmt REQUIRED)
  find_package(spdlog REQUIRED)
  find_package(OpenSSL REQUIRED)
  find_package(CURL REQUIRED)
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET GLOBAL cpp-httplib)
  find_package(prometheus-cpp CONFIG REQUIRED)
  # The binary's allocator (docs/development.md, "Dependencies").
  find_package(mimalloc 2.0 CONFIG REQUIRED)
  find_package(simdjson 3.0 CONFIG REQUIRED)
  if(GPUPOOL_BUILD_TESTS)
    find_package(GTest REQUIRED)
  endif()
  if(GPUPOOL_BUILD_BENCH)
    find_package(benchmark REQUIRED)
  endif()
endfunction()

function(gpupool_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Werror
                                           -Wno-missing-field-initializers)
endfunction()

# gpupool_module(<name> [DEPS <targets>...])
# Builds every .cpp below the calling folder into the static library
# gpupool_<name>, with include/ as its public include path.
function(gpupool_module name)
  cmake_parse_arguments(ARG "" "" "DEPS" ${ARGN})
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  add_library(gpupool_${name} STATIC ${sources})
  target_include_directories(gpupool_${name} PUBLIC ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(gpupool_${name} PUBLIC ${ARG_DEPS})
  gpupool_warnings(gpupool_${name})
endfunction()

# gpupool_test_suite(<name> [DEPS <targets>...] [LABELS <labels>...])
# Builds every .cpp below the calling folder into the GoogleTest binary
# <name>_tests and registers each test case with CTest.
function(gpupool_test_suite name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "DEPS;LABELS" ${ARGN})
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  add_executable(${name}_tests ${sources})
  target_link_libraries(${name}_tests PRIVATE ${ARG_DEPS} GTest::gmock GTest::gtest_main)
  target_compile_definitions(${name}_tests PRIVATE
    GPUPOOL_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    GPUPOOL_BINARY="$<TARGET_FILE:gpupool>")
  gpupool_warnings(${name}_tests)
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  include(GoogleTest)
  gtest_discover_tests(${name}_tests
    DISCOVERY_MODE PRE_TEST
    PROPERTIES TIMEOUT ${ARG_TIMEOUT} LABELS "${name};${ARG_LABELS}")
endfunction()

# gpupool_benchmark(<name> SOURCES <files>... [DEPS <targets>...])
function(gpupool_benchmark name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} benchmark::benchmark)
  target_compile_definitions(${name} PRIVATE GPUPOOL_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  gpupool_warnings(${name})
endfunction()
