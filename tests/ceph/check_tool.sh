#!/bin/sh
# tools/resonio-ceph: two clusters side by side (one mounted, one not),
# each stopped without disturbing the other, and a start that fails after
# its daemons are up (a regular file where the mount point goes); after
# each stop no live process names the cluster's configuration and nothing
# is mounted under its directory.
tool=$1
base=$(mktemp -d /tmp/rio-ceph-tool.XXXXXX)
a=$base/a b=$base/b
fail=0
bad() { echo "FAIL: $*"; fail=1; }
live() { # live processes naming $1/ceph.conf (zombies are gone already)
  for p in /proc/[0-9]*; do
    { tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null | grep -q -- "$1/ceph.conf" || continue
    grep -q '^State:[[:space:]]*Z' "$p/status" 2>/dev/null || echo "${p#/proc/}"
  done
}
gone() { # $1 dir, $2 what
  [ -z "$(live "$1")" ] || bad "$2: processes left: $(live "$1")"
  grep -q " $1/" /proc/mounts && bad "$2: a mount is left under $1"
}
cleanup() { "$tool" stop --dir "$a" >/dev/null 2>&1; "$tool" stop --dir "$b" >/dev/null 2>&1
            rm -rf "$base"; }
trap cleanup EXIT

"$tool" start --dir "$a" --osds 1 --no-fuse || bad "start a"
"$tool" start --dir "$b" --osds 1 || bad "start b"
"$tool" status --dir "$a" >/dev/null || bad "status a: $("$tool" status --dir "$a")"
"$tool" status --dir "$b" >/dev/null || bad "status b: $("$tool" status --dir "$b")"
pa=$(grep '^mon host' "$a/ceph.conf") pb=$(grep '^mon host' "$b/ceph.conf")
[ "$pa" != "$pb" ] || bad "both clusters use $pa"
grep -q " $a/mnt " /proc/mounts && bad "a is mounted despite --no-fuse"
grep -q " $b/mnt " /proc/mounts || bad "b is not mounted"
echo hello >"$b/mnt/f" && [ "$(cat "$b/mnt/f")" = hello ] || bad "write/read on b's mount"
"$tool" stop --dir "$a" || bad "stop a"
gone "$a" "stop a"
"$tool" status --dir "$b" >/dev/null || bad "b did not survive a's stop"
[ "$(cat "$b/mnt/f")" = hello ] || bad "b's file after a's stop"
"$tool" stop --dir "$b" || bad "stop b"
gone "$b" "stop b"
"$tool" stop --dir "$b" || bad "a second stop of b"

# a start that fails once its daemons run
rm -rf "$a"; mkdir -p "$a"; : >"$a/mnt"
if "$tool" start --dir "$a" --osds 1 2>"$base/err"; then
  bad "start with a file as mount point succeeded"
else
  grep -q "failed" "$base/err" || bad "failed start said: $(cat "$base/err")"
fi
gone "$a" "failed start"
[ $fail = 0 ] && echo "resonio-ceph: side by side, stop and failed start leave nothing"
exit $fail
