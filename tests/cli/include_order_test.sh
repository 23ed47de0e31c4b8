#!/usr/bin/env bash
# scripts/check-includes passes on the tree, and fails on a copy of it where a
# lower module includes a higher one, naming the file, the line and the modules,
# and where a public header is used by its own module only.
set -euo pipefail
check=$1
root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 "$check" /nonexistent >/dev/null && { echo "an empty tree passed"; exit 1; }
python3 "$check" "$root" >"$work/clean.txt" || { cat "$work/clean.txt"; exit 1; }
grep -q "^check-includes: 0 include(s)" "$work/clean.txt"

cp -r "$root/controller" "$root/include" "$root/sandbox" "$root/tests" "$root/bench" "$work/"
echo '#include "gpupool/operator/plan.h"' >>"$work/include/gpupool/api/queue.h"
echo '#include "sandbox/cluster.h"' >>"$work/controller/operator/plan.cpp"
echo '#pragma once' >"$work/include/gpupool/api/only_api_uses.h"
echo '#include "gpupool/api/only_api_uses.h"' >>"$work/controller/api/queue.cpp"
if python3 "$check" "$work" >"$work/reversed.txt"; then
  echo "a reversed include passed:"; cat "$work/reversed.txt"; exit 1
fi
grep -q "include/gpupool/api/queue.h:[0-9]*: api includes operator, which comes after it" \
  "$work/reversed.txt" || { cat "$work/reversed.txt"; exit 1; }
grep -q "controller/operator/plan.cpp:[0-9]*: operator includes a private sandbox/ header" \
  "$work/reversed.txt" || { cat "$work/reversed.txt"; exit 1; }
grep -q "^check-includes: 2 include(s)" "$work/reversed.txt" || { cat "$work/reversed.txt"; exit 1; }
grep -q "^include/gpupool/api/only_api_uses.h: a public header no other module includes" \
  "$work/reversed.txt" || { cat "$work/reversed.txt"; exit 1; }
grep -q "^check-includes: 1 public header(s)" "$work/reversed.txt" || { cat "$work/reversed.txt"; exit 1; }
echo "include order: the tree passes, a reversed include and an unshared header fail"
