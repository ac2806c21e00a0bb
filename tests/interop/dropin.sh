#!/usr/bin/env bash
# dropin.sh — run an unmodified MPI-IO program with and without resonio.
#
# usage: dropin.sh "<mpiexec> [flags]" <ranks> <program> <libresonio-mpiio.so> <scratch prefix> [mpich|openmpi [cross|nocross ["<compare command>"]]]
#
# The program (i_dropin, i_hdf5, i_pnetcdf, the Python scripts) writes the file named after
# -fname and prints "implementation: native|resonio" and "No Errors".  It
# runs twice: plain, where MPI_File_* are the MPI library's own, and with
# the drop-in library preloaded into the ranks (Open MPI forwards only what
# -x names; MPICH's hydra takes -genv).  Both runs must pass, the plain run
# must not have used resonio and the preloaded one must have, and the two
# files must be equal byte for byte (the program writes every byte, so cmp
# needs no mask) — or, when a compare command is given, that command,
# run on the two files, must succeed (h5py's files are compared dataset by
# dataset: their metadata may differ).  With "cross", each file is then read back and checked
# (the program with -mode read) by the other implementation: resonio reads
# the MPI library's file and the MPI library reads resonio's.
set -u
if [ $# -lt 5 ]; then
  echo "usage: $0 \"mpiexec [flags]\" ranks program library prefix [mpich|openmpi [cross]]" >&2
  exit 2
fi
MPIEXEC=$1 NP=$2 PROG=$3 LIB=$4 PREFIX=$5 FLAVOR=${6:-} CROSS=${7:-} COMPARE=${8:-}
if [ -z "$FLAVOR" ]; then
  if $MPIEXEC --version 2>&1 | grep -qi -e 'open mpi' -e 'openrte'; then FLAVOR=openmpi; else FLAVOR=mpich; fi
fi
if [ ! -r "$LIB" ]; then
  echo "FAIL: drop-in library $LIB not found"; exit 1
fi

status=0
fail() { echo "FAIL: $*"; status=1; }

rm -f "$PREFIX.plain" "$PREFIX.preload"

# A sanitizer build links the program with libasan, which must come first
# in the library list: preload it ahead of the drop-in library.
PRELOAD=$LIB
ASAN=$(ldd "$PROG" 2>/dev/null | awk '/libasan/ {print $3; exit}')
[ -n "$ASAN" ] && PRELOAD="$ASAN:$LIB"
case $FLAVOR in
  openmpi) WITH=(-x "LD_PRELOAD=$PRELOAD") ;;
  *)       WITH=(-genv LD_PRELOAD "$PRELOAD") ;;
esac

# run <what> <native|resonio> <output> <program arguments...>: the program
# plain or preloaded; it must pass and must have used that implementation.
run() {
  local what=$1 impl=$2 out=$3 rc; shift 3
  local launch=()
  [ "$impl" = resonio ] && launch=("${WITH[@]}")
  # $MPIEXEC holds the launcher and its flags: split on purpose.
  # shellcheck disable=SC2086
  $MPIEXEC "${launch[@]}" -n "$NP" "$PROG" "$@" > "$out" 2>&1
  rc=$?
  echo "---- $what (exit $rc)"; cat "$out"
  [ $rc -eq 0 ] || fail "$what exited with $rc"
  grep -q "No Errors" "$out" || fail "$what did not print No Errors"
  grep -q "^implementation: $impl" "$out" || fail "$what did not use $impl's MPI-IO"
}

run "plain run" native "$PREFIX.plain.out" -fname "$PREFIX.plain"
run "run with LD_PRELOAD=$PRELOAD" resonio "$PREFIX.preload.out" -fname "$PREFIX.preload"

if [ -f "$PREFIX.plain" ] && [ -f "$PREFIX.preload" ] && [ -n "$COMPARE" ]; then
  # the command and its fixed arguments: split on purpose
  # shellcheck disable=SC2086
  $COMPARE "$PREFIX.plain" "$PREFIX.preload" || fail "the files written by the MPI library and by resonio differ ($COMPARE)"
elif [ -f "$PREFIX.plain" ] && [ -f "$PREFIX.preload" ]; then
  if cmp "$PREFIX.plain" "$PREFIX.preload"; then
    echo "files identical: $(wc -c < "$PREFIX.plain") bytes"
  else
    fail "the files written by the MPI library and by resonio differ"
  fi
else
  fail "a run left no file to compare"
fi

if [ "$CROSS" = cross ]; then
  run "plain read of resonio's file" native "$PREFIX.cross.out" -fname "$PREFIX.preload" -mode read
  run "resonio's read of the plain file" resonio "$PREFIX.cross.out" -fname "$PREFIX.plain" -mode read
fi

if [ $status -eq 0 ]; then
  rm -f "$PREFIX.plain" "$PREFIX.preload" "$PREFIX.plain.out" "$PREFIX.preload.out" "$PREFIX.cross.out"
  echo "dropin: passed"
fi
exit $status
