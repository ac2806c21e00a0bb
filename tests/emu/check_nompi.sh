#!/bin/sh
# check_nompi.sh BINARY — fails when BINARY needs an MPI library: the
# emulated storage service must run where no MPI is, and must not share a
# process with one.  Lists the binary's needed libraries as the loader
# sees them (readelf), so a library pulled in indirectly counts too (ldd).
bin=$1
[ -x "$bin" ] || { echo "FAIL: $bin is not an executable"; exit 1; }
needed=$(readelf -d "$bin") || { echo "FAIL: readelf cannot read $bin"; exit 1; }
all=$(ldd "$bin") || { echo "FAIL: ldd cannot read $bin"; exit 1; }
if printf '%s\n%s\n' "$needed" "$all" | grep -Ei 'libmpi|libmpich|libopen-(pal|rte)|libucp|libfabric'; then
  echo "FAIL: $bin needs an MPI library (above)"
  exit 1
fi
printf '%s\n' "$needed" | grep NEEDED
echo "ok - $bin needs no MPI library"
