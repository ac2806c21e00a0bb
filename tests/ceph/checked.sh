#!/bin/sh
# checked.sh TOOL DIR PROGRAM ARGS...: run one test on the tests' cluster in
# DIR; when it fails (a nonzero exit, or no "No Errors" line) print what
# `TOOL check --dir DIR` finds, so that the failure shows the cluster's
# state (a daemon gone, operations blocked, a crash in a log) beside it.
tool=$1 dir=$2
shift 2
out=$(mktemp) || exit 1
"$@" >"$out" 2>&1
rc=$?
cat "$out"
if [ "$rc" -ne 0 ] || ! grep -q "No Errors" "$out"; then
  echo "== the cluster in $dir after this failure:"
  "$tool" check --dir "$dir"
fi
rm -f "$out"
exit "$rc"
