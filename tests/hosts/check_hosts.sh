#!/bin/sh
# tools/resonio-hosts: up, MPI jobs across the hosts, a killed job, a
# failed up, down; after each down nothing of the cluster is left: no
# namespace, no link, no process, no mount, no state.
#   check_hosts.sh TOOL PROGRAM DIR MPIEXEC [MPIEXEC FLAGS...]
tool=$1 prog=$2 dir=$3; shift 3
name=$(basename "$prog") # its ranks' process name
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# live processes of the program (a killed rank whose parent died too may
# stay a zombie where init does not reap: it holds nothing)
live() { ps -eo pid=,stat=,comm= | awk -v n="$name" '$3 == n && $2 !~ /^Z/ { print $1 }' | tr '\n' ' '; }

# the cluster's tag (its namespaces, bridge and links begin with it)
tag() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tag"])' "$dir/state.json"; }

# nothing of the cluster tagged $1 left
nothing_left() {
  t=$1 what=$2
  ip netns list | grep -q "^$t-" && bad "$what: namespaces left: $(ip netns list | grep "^$t-" | tr '\n' ' ')"
  ip -o link show | grep -q " $t-" && bad "$what: links left: $(ip -o link show | grep " $t-" | cut -d: -f2 | tr '\n' ' ')"
  grep -q " $dir/" /proc/mounts && bad "$what: mounts left under $dir"
  [ -n "$(live)" ] && bad "$what: processes of $prog left: $(live)"
  [ -e "$dir/state.json" ] && bad "$what: $dir/state.json left"
  # a killed job's MPI library leaves files named for its host (Open MPI:
  # /dev/shm/vader_segment.HOST.*, /tmp/ompi.HOST.UID)
  left=$(ls -d /dev/shm/*."$t"-h[0-9]* /tmp/ompi."$t"-h[0-9]* 2>/dev/null | tr '\n' ' ')
  [ -n "$left" ] && bad "$what: the MPI library's files left: $left"
  return 0
}

"$tool" down --dir "$dir" >/dev/null 2>&1

# 1. two hosts of two slots: four ranks, two on each
"$tool" up --dir "$dir" --hosts 2 --slots 2 || { echo "FAIL: up"; exit 1; }
t=$(tag)
"$tool" status --dir "$dir" || bad "status"
out=$("$tool" run --dir "$dir" -- "$@" -n 4 "$prog" 2 2>&1)
echo "$out"
echo "$out" | grep -q "No Errors" || bad "a job of 4 ranks on 2 hosts"
# its hosts are the cluster's: each rank names one of them
for h in 1 2; do
  [ "$(echo "$out" | grep -c "on $t-h$h:")" -eq 2 ] || bad "not 2 ranks on $t-h$h"
done

# 2. a job killed half way: its daemons and ranks die with down
"$tool" run --dir "$dir" -- "$@" -n 4 "$prog" 2 -sleep 120 >"$dir.killed.log" 2>&1 &
runner=$!
i=0
until grep -q "sleeping" "$dir.killed.log" 2>/dev/null || [ $i -ge 300 ]; do sleep 0.1; i=$((i + 1)); done
grep -q "sleeping" "$dir.killed.log" || bad "the job to kill did not start: $(cat "$dir.killed.log")"
kill -9 $runner 2>/dev/null
wait $runner 2>/dev/null
[ -n "$(live)" ] || bad "killing the launcher already ended the ranks: nothing for down to do"
"$tool" down --dir "$dir" || bad "down after a killed job"
nothing_left "$t" "down after a killed job"
rm -f "$dir.killed.log"

# 3. an up that fails half way (the second host's namespace is taken)
# cleans up after itself
ip netns add "$t-h2"
if "$tool" up --dir "$dir" --hosts 3 --slots 1; then
  bad "up succeeded although $t-h2 existed"
  "$tool" down --dir "$dir"
fi
nothing_left "$t" "a failed up"

# 4. down with nothing up is harmless
"$tool" down --dir "$dir" || bad "a second down"
[ $fail -eq 0 ] && echo "No Errors"
exit $fail
