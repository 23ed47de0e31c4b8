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

# gpupool_module(<name> SOURCES <files>... [DEPS <targets>...])
# Builds the listed sources of the calling folder into the static library
# gpupool_<name>, with include/ as its public include path.
function(gpupool_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  gpupool_check_source_list("${ARG_SOURCES}")
  add_library(gpupool_${name} STATIC ${ARG_SOURCES})
  target_include_directories(gpupool_${name} PUBLIC ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(gpupool_${name} PUBLIC ${ARG_DEPS})
  gpupool_warnings(gpupool_${name})
endfunction()

# A module lists its sources; a .cpp in its folder that the list leaves out (or a
# listed one that is missing) stops the configure instead of going unbuilt.
# RECURSE: the folders below count too. EXCLUDE: files built by another target.
function(gpupool_check_source_list listed)
  cmake_parse_arguments(ARG "RECURSE" "" "EXCLUDE" ${ARGN})
  set(glob GLOB)
  if(ARG_RECURSE)
    set(glob GLOB_RECURSE)
  endif()
  set(depends CONFIGURE_DEPENDS)  # A new file reconfigures; not in script mode (its test).
  if(CMAKE_SCRIPT_MODE_FILE)
    set(depends "")
  endif()
  file(${glob} present ${depends} RELATIVE ${CMAKE_CURRENT_SOURCE_DIR}
       ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  list(REMOVE_ITEM present ${ARG_EXCLUDE})
  set(unlisted ${present})
  list(REMOVE_ITEM unlisted ${listed})
  set(missing ${listed})
  list(REMOVE_ITEM missing ${present})
  if(unlisted OR missing)
    message(FATAL_ERROR "${CMAKE_CURRENT_SOURCE_DIR}/CMakeLists.txt: sources not listed: "
                        "${unlisted}; listed but missing: ${missing}")
  endif()
endfunction()

# The real control planes end-to-end tests run on: the version folders of
# GPUPOOL_K8S_DIR (default: ../shared/k8s beside the checkout) holding a
# kube-apiserver.xz; "real" alone when there is none (those tests then skip,
# saying why). tests/backends/test_cluster.h lists the same at run time.
function(gpupool_real_backends out)
  if(DEFINED ENV{GPUPOOL_K8S_DIR})
    set(k8s_dir $ENV{GPUPOOL_K8S_DIR})
  else()
    get_filename_component(k8s_dir ${PROJECT_SOURCE_DIR}/../shared/k8s ABSOLUTE)
  endif()
  file(GLOB apiservers ${k8s_dir}/v*/kube-apiserver.xz)
  set(backends "")
  foreach(apiserver IN LISTS apiservers)
    get_filename_component(version_dir ${apiserver} DIRECTORY)
    get_filename_component(version ${version_dir} NAME)
    list(APPEND backends ${version})
  endforeach()
  if(NOT backends)
    set(backends real)
  endif()
  set(${out} ${backends} PARENT_SCOPE)
endfunction()

# The gtest name of a backend's test instances ("v1.30.14" -> "v1_30_14").
function(gpupool_backend_test_name backend out)
  string(REGEX REPLACE "[^A-Za-z0-9]" "_" name ${backend})
  set(${out} ${name} PARENT_SCOPE)
endfunction()

# gpupool_backend_tests(<target> <backends> [TIMEOUT seconds])
# One CTest entry per backend, "<target>.<backend>", runs every test of
# <target> instantiated for it, so the cluster it starts once serves them all.
function(gpupool_backend_tests target)
  cmake_parse_arguments(ARG "" "TIMEOUT" "BACKENDS" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 1200)
  endif()
  foreach(backend IN LISTS ARG_BACKENDS)
    gpupool_backend_test_name(${backend} test_name)
    add_test(NAME ${target}.${backend} COMMAND ${target} --gtest_filter=*${test_name}
             WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
    # COST: the longest entries start first, so that CTest's other work
    # overlaps them instead of following them.
    set_tests_properties(${target}.${backend} PROPERTIES TIMEOUT ${ARG_TIMEOUT}
                         LABELS "backends;${backend}" COST 1000)
    if(NOT backend STREQUAL "sandbox")
      # One control plane at a time: two of them and the tests' own processes
      # on two cores would stretch every timing the stories check.
      set_tests_properties(${target}.${backend} PROPERTIES RESOURCE_LOCK control-plane)
    endif()
  endforeach()
endfunction()

# gpupool_test_suite(<name> [DEPS <targets>...] [LABELS <labels>...] [REAL_BACKENDS])
# Builds every .cpp below the calling folder into the GoogleTest binary
# <name>_tests and registers each test case with CTest. With REAL_BACKENDS,
# the cases instantiated for a real control plane are registered per backend
# instead (gpupool_backend_tests): one control plane per process.
function(gpupool_test_suite name)
  cmake_parse_arguments(ARG "REAL_BACKENDS" "TIMEOUT" "DEPS;LABELS" ${ARGN})
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  add_executable(${name}_tests ${sources})
  target_link_libraries(${name}_tests PRIVATE ${ARG_DEPS} GTest::gmock GTest::gtest_main)
  # Tests may read a module's private headers: "<module>/<header>.h".
  target_include_directories(${name}_tests PRIVATE ${PROJECT_SOURCE_DIR}/controller)
  target_compile_definitions(${name}_tests PRIVATE
    GPUPOOL_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    GPUPOOL_BINARY="$<TARGET_FILE:gpupool>")
  gpupool_warnings(${name}_tests)
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  include(GoogleTest)
  set(filter "*")
  if(ARG_REAL_BACKENDS)
    gpupool_real_backends(backends)
    set(excluded "")
    foreach(backend IN LISTS backends)
      gpupool_backend_test_name(${backend} test_name)
      list(APPEND excluded "*${test_name}")
    endforeach()
    list(JOIN excluded ":" excluded)
    set(filter "-${excluded}")
    gpupool_backend_tests(${name}_tests BACKENDS ${backends})
  endif()
  gtest_discover_tests(${name}_tests
    DISCOVERY_MODE PRE_TEST
    TEST_FILTER "${filter}"
    PROPERTIES TIMEOUT ${ARG_TIMEOUT} LABELS "${name};${ARG_LABELS}")
endfunction()

# gpupool_benchmark(<name> SOURCES <files>... [DEPS <targets>...])
function(gpupool_benchmark name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} benchmark::benchmark)
  # Benchmarks may read a module's private headers: "<module>/<header>.h".
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/controller)
  target_compile_definitions(${name} PRIVATE GPUPOOL_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  gpupool_warnings(${name})
endfunction()
