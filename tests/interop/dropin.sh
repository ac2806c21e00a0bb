#!/bin/sh
# dropin.sh — run an unmodified MPI-IO program with and without resonio.
#
# usage: dropin.sh "<mpiexec> [flags]" <ranks> <program> <libresonio-mpiio.so> <scratch prefix> [mpich|openmpi]
#
# The program (i_dropin) writes the file named after -fname and prints
# "implementation: native|resonio" and "No Errors".  It runs twice: plain,
# where MPI_File_* are the MPI library's own, and with the drop-in library
# preloaded into the ranks (Open MPI forwards only what -x names; MPICH's
# hydra takes -genv).  Both runs must pass, the plain run must not have used
# resonio and the preloaded one must have, and the two files must be equal
# byte for byte (the program writes every byte, so cmp needs no mask).
set -u
if [ $# -lt 5 ]; then
  echo "usage: $0 \"mpiexec [flags]\" ranks program library prefix [mpich|openmpi]" >&2
  exit 2
fi
MPIEXEC=$1 NP=$2 PROG=$3 LIB=$4 PREFIX=$5 FLAVOR=${6:-}
if [ -z "$FLAVOR" ]; then
  if $MPIEXEC --version 2>&1 | grep -qi -e 'open mpi' -e 'openrte'; then FLAVOR=openmpi; else FLAVOR=mpich; fi
fi
if [ ! -r "$LIB" ]; then
  echo "FAIL: drop-in library $LIB not found"; exit 1
fi

status=0
fail() { echo "FAIL: $*"; status=1; }

rm -f "$PREFIX.plain" "$PREFIX.preload"

# $MPIEXEC holds the launcher and its flags: split on purpose.
# shellcheck disable=SC2086
$MPIEXEC -n "$NP" "$PROG" -fname "$PREFIX.plain" > "$PREFIX.plain.out" 2>&1
rc=$?
echo "---- plain run (exit $rc)"; cat "$PREFIX.plain.out"
[ $rc -eq 0 ] || fail "plain run exited with $rc"
grep -q "No Errors" "$PREFIX.plain.out" || fail "plain run did not print No Errors"
grep -q "^implementation: native" "$PREFIX.plain.out" || fail "plain run did not use the MPI library's own MPI-IO"

# A sanitizer build links the program with libasan, which must come first
# in the library list: preload it ahead of the drop-in library.
PRELOAD=$LIB
ASAN=$(ldd "$PROG" 2>/dev/null | awk '/libasan/ {print $3; exit}')
[ -n "$ASAN" ] && PRELOAD="$ASAN:$LIB"
case $FLAVOR in
  openmpi) set -- -x "LD_PRELOAD=$PRELOAD" ;;
  *)       set -- -genv LD_PRELOAD "$PRELOAD" ;;
esac
# shellcheck disable=SC2086
$MPIEXEC "$@" -n "$NP" "$PROG" -fname "$PREFIX.preload" > "$PREFIX.preload.out" 2>&1
rc=$?
echo "---- run with LD_PRELOAD=$PRELOAD (exit $rc)"; cat "$PREFIX.preload.out"
[ $rc -eq 0 ] || fail "preloaded run exited with $rc"
grep -q "No Errors" "$PREFIX.preload.out" || fail "preloaded run did not print No Errors"
grep -q "^implementation: resonio" "$PREFIX.preload.out" || fail "preloaded run did not use resonio"

if [ -f "$PREFIX.plain" ] && [ -f "$PREFIX.preload" ]; then
  if cmp "$PREFIX.plain" "$PREFIX.preload"; then
    echo "files identical: $(wc -c < "$PREFIX.plain") bytes"
  else
    fail "the files written by the MPI library and by resonio differ"
  fi
else
  fail "a run left no file to compare"
fi

if [ $status -eq 0 ]; then
  rm -f "$PREFIX.plain" "$PREFIX.preload" "$PREFIX.plain.out" "$PREFIX.preload.out"
  echo "dropin: passed"
fi
exit $status
