#!/bin/sh
# The collective engine on real hosts (tools/resonio-hosts): every
# strategy's byte-verified matrix (t_coll_matrix) at 2 hosts of 2 ranks
# and at 4 hosts of 1 rank, where the MPI library's nodes are the hosts
# (two_phase's default aggregators one per host, node_first's one per
# host, the node-shared buffers per host: the matrix checks each against
# its model of the real nodes); two_phase's cb_config_list naming hosts
# (t_coll_cbconfig -real 1: a list naming one host takes only its ranks);
# a file opened across hosts where Open MPI cannot make the shared
# pointer's one-sided window (its UCX component, chosen by default, fails
# over TCP): the open and collective I/O work, write_shared fails clearly
# (t_hosts_sfp -expect none), and with the UCX component left out
# (OMPI_MCA_osc=^ucx) the window exists and write_shared works;
# node_first's exchange inside each host (resonio-bench counts the bytes
# between hosts); nothing left after down.
#   check_matrix.sh TOOL DIR MATRIX CBCONFIG SFP BENCH STRATEGIES MPIEXEC [FLAGS...]
tool=$1 dir=$2 matrix=$3 cbconfig=$4 sfp=$5 bench=$6 strategies=$7
shift 7
fail=0
bad() { echo "FAIL: $*"; fail=1; }
files="$dir.files"
rm -rf "$files" && mkdir -p "$files" || { echo "FAIL: cannot make $files"; exit 1; }
"$tool" down --dir "$dir" >/dev/null 2>&1

# job WHAT PROGRAM ARGS...: a job of 4 ranks over the cluster, in the
# environment plus $JOBENV (NAME=VALUE words), that prints $PASS
PASS="No Errors" JOBENV=
job() {
  what=$1
  shift
  out=$(env $JOBENV "$tool" run --dir "$dir" -- "$MPIEXEC" $FLAGS -n 4 "$@" 2>&1)
  if echo "$out" | grep -q "$PASS"; then
    echo "ok: $what"
  else
    echo "$out" | tail -20
    bad "$what"
  fi
}
MPIEXEC=$1
shift
FLAGS="$*"

for shape in "2 2" "4 1"; do
  set -- $shape
  hosts=$1 slots=$2
  "$tool" up --dir "$dir" --hosts "$hosts" --slots "$slots" >/dev/null || { bad "up $hosts hosts"; continue; }
  for s in $strategies; do
    job "$s on $hosts hosts of $slots" "$matrix" -fname "$files/m.$s" -strategy "$s"
  done
  if [ "$slots" = 2 ]; then
    job "cb_config_list naming hosts, $hosts hosts of $slots" "$cbconfig" -fname "$files/cb" -real 1
    job "no shared pointer window" "$sfp" -fname "$files/sfp" -expect none
    JOBENV=OMPI_MCA_osc=^ucx
    job "a shared pointer window without UCX" "$sfp" -fname "$files/sfp" -expect window
    JOBENV=
    # node_first's claim (its exchange stays inside each host), counted at
    # the hosts' interfaces by resonio-bench: below a tenth of the data
    # crosses between hosts, where two_phase sends more than a quarter
    # (each rank's blocks are spread over both hosts' file domains)
    PASS="every byte verified"
    job "the bench on $hosts hosts" "$bench" -w demo -size 4m -impl native,two_phase,node_first \
      -rounds 1 -noplot -o "$files/bench" -dir "$files"
    PASS="No Errors"
    python3 - "$files/bench" <<'PY' || bad "bytes between hosts"
import glob, json, sys
d = json.load(open(glob.glob(sys.argv[1] + "/*.json")[0]))
p = d["points"][0]
crossed = {i["impl"]: (i["write"]["between_hosts"], i["read"]["between_hosts"]) for i in p["impls"]}
print("MiB between hosts of %.1f MiB per phase (write, read): %s" % (p["bytes"] / 2**20,
      ", ".join("%s %.2f %.2f" % (k, v[0] / 2**20, v[1] / 2**20) for k, v in crossed.items())))
ok = all(v is not None for v in sum(crossed.values(), ()))
ok = ok and max(crossed["node_first"]) < 0.1 * p["bytes"]
ok = ok and min(crossed["two_phase"]) > 0.25 * p["bytes"]
print("node_first keeps its exchange inside each host:", "yes" if ok else "NO")
sys.exit(0 if ok else 1)
PY
  fi
  "$tool" down --dir "$dir" || bad "down after $hosts hosts"
done
[ -e "$dir/state.json" ] && bad "state left in $dir"
rm -rf "$files"
[ $fail -eq 0 ] && echo "No Errors"
exit $fail
