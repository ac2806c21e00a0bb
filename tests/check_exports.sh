#!/bin/sh
# Fails if a library exports a symbol outside the public prefixes.
status=0
for lib in "$@"; do
  if ! nm -D --defined-only "$lib" >/dev/null; then
    echo "cannot read the symbols of $lib"; status=1; continue
  fi
  bad=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' |
        grep -Ev '^(rio_|MPI_File_|PMPI_File_|MPI_Register_datarep|PMPI_Register_datarep|_init$|_fini$|_edata$|_end$|__bss_start$)')
  if [ -n "$bad" ]; then
    echo "$lib exports names outside the public prefixes:"; echo "$bad"; status=1
  fi
  n=$(nm -D --defined-only "$lib" | grep -c ' T ')
  echo "$lib: $n functions exported"
done
[ $status -eq 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit $status
