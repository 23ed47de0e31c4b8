#!/usr/bin/env bash
# gpupool_check_source_list (cmake/Gpupool.cmake) passes a folder whose sources are all
# listed, and stops the configure naming a source the list leaves out and a listed
# one that is missing, in a folder and with RECURSE below it.
set -euo pipefail
cmake_dir=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/sub"
touch "$work/a.cpp" "$work/b.cpp" "$work/sub/c.cpp"

check() {  # check LISTED [RECURSE]: runs the check in $work, prints its output
  cat >"$work/check.cmake" <<SCRIPT
include($cmake_dir/Gpupool.cmake)
set(CMAKE_CURRENT_SOURCE_DIR $work)
gpupool_check_source_list("$1" ${2:-})
SCRIPT
  cmake -P "$work/check.cmake" 2>&1
}

check "a.cpp;b.cpp" >"$work/out.txt" || { cat "$work/out.txt"; echo "a full list failed"; exit 1; }
check "a.cpp;b.cpp;sub/c.cpp" RECURSE >"$work/out.txt" ||
  { cat "$work/out.txt"; echo "a full recursive list failed"; exit 1; }
if check "a.cpp;gone.cpp" >"$work/out.txt"; then
  echo "a list without b.cpp passed"; exit 1
fi
# CMake wraps the message: its two halves are looked for apart.
grep -q "sources not listed: b.cpp" "$work/out.txt" || { cat "$work/out.txt"; exit 1; }
grep -q "missing: gone.cpp" "$work/out.txt" || { cat "$work/out.txt"; exit 1; }
if check "a.cpp;b.cpp" RECURSE >"$work/out.txt"; then
  echo "a recursive list without sub/c.cpp passed"; exit 1
fi
grep -q "sources not listed: sub/c.cpp" "$work/out.txt" || { cat "$work/out.txt"; exit 1; }
echo "source lists: a full list passes, an unlisted or missing source fails"
