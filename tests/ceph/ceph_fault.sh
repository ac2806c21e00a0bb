#!/bin/sh
# ceph_fault.sh TOOL DIR MPIEXEC... : a cluster of the fault test's own
# (bluestore OSDs: their data survive the SIGKILL the test deals; the
# ceph-fuse mount, through which the test verifies the file), the command
# run against it with CEPH_CONF set, and the cluster stopped however the
# command ends.  Not the shared fixture's cluster: the test kills OSDs.
tool=$1 dir=$2
shift 2
cleanup() { "$tool" stop --dir "$dir" >/dev/null 2>&1; rm -rf "$dir"; }
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
"$tool" stop --dir "$dir" >/dev/null 2>&1
rm -rf "$dir"
mkdir -p "$dir" || exit 1
"$tool" start --dir "$dir" --osds 3 --store bluestore || exit 1
CEPH_CONF=$dir/ceph.conf "$@"
