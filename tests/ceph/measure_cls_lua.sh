#!/bin/sh
# measure_cls_lua.sh D T_CLS_LUA — one run of item 8's comparison on the
# cluster in directory D (tools/resonio-ceph start --dir D): the same
# fine-grained write (8-byte blocks 64 bytes apart, 1 MiB of data in each
# of 4 objects) once through the lua class with a dataloop and once as one
# compound write of all extents per object.  Around each it resets every
# OSD's counters and then sums, over the OSDs, the client operations
# (op, op_w, op_rw), the bytes the operations wrote (op_in_bytes) and the
# bytes the OSDs' messengers received (msgr_recv_bytes: requests, plus a
# little heartbeat traffic), next to what the program itself reports.
set -eu
D=$1
PROG=$2
export CEPH_CONF="$D/ceph.conf"
counters() {
  for s in "$D"/run/osd.*.asok; do ceph --admin-daemon "$s" perf dump; echo; done |
  /usr/bin/python3 -c '
import json, sys
text = sys.stdin.read()
dec, i, tot = json.JSONDecoder(), 0, {"op": 0, "op_w": 0, "op_rw": 0, "op_in_bytes": 0, "msgr_recv_bytes": 0}
while True:
    while i < len(text) and text[i].isspace(): i += 1
    if i >= len(text): break
    d, i = dec.raw_decode(text, i)
    for k in ("op", "op_w", "op_rw", "op_in_bytes"): tot[k] += d["osd"][k]
    tot["msgr_recv_bytes"] += sum(v["msgr_recv_bytes"] for k, v in d.items() if k.startswith("AsyncMessenger"))
print("  OSD counters: " + ", ".join("%s %d" % kv for kv in tot.items()))'
}
for how in lua lua-extents list; do  # [n] as $3: extents per object
  for s in "$D"/run/osd.*.asok; do ceph --admin-daemon "$s" perf reset all >/dev/null; done
  "$PROG" -measure "$how" ${3:-} | grep -E "measure|error"
  counters
done
