"""Helpers shared by the scripts behind resonio-bench's --suite validate,
--suite sim and --suite overlap -all: finding the builds, running the SMPI
build, reading the bench's JSON."""
import glob
import json
import math
import os
import sys

PROG = os.path.basename(sys.argv[0])


def log(msg):
    sys.stderr.write("%s: %s\n" % (PROG, msg))
    sys.stderr.flush()


def die(msg):
    log(msg)
    sys.exit(1)


def build_root(path):
    """The build directory (with CMakeCache.txt) that holds path."""
    d = os.path.dirname(os.path.abspath(path))
    while d != "/":
        if os.path.exists(os.path.join(d, "CMakeCache.txt")):
            return d
        d = os.path.dirname(d)
    return None


def cache_value(root, key):
    with open(os.path.join(root, "CMakeCache.txt")) as f:
        for line in f:
            if line.startswith(key + ":"):
                return line.split("=", 1)[1].strip()
    return ""


def find_smpi(smpi, root):
    """The SMPI build's resonio-smpirun and resonio-bench: --smpi DIR,
    RESONIO_SMPI_BUILD, or a build beside root that has them."""
    cands = [smpi] if smpi else []
    if os.environ.get("RESONIO_SMPI_BUILD"):
        cands.append(os.environ["RESONIO_SMPI_BUILD"])
    if not cands and root:
        cands = [os.path.dirname(c) for c in
                 sorted(glob.glob(os.path.join(os.path.dirname(root), "*", "resonio-smpirun")))]
    for c in cands:
        run = os.path.join(c, "resonio-smpirun")
        bench = os.path.join(c, "resonio-bench")
        if os.path.exists(run) and os.path.exists(bench):
            return os.path.abspath(run), os.path.abspath(bench)
    die("no SMPI build found (%s): configure one with -DRESONIO_SMPI=ON and name it "
        "with --smpi" % (", ".join(cands) or "none beside %s" % root))


def find_mpi_build(mpi, root):
    """(resonio-bench, build directory) of a build for MPI library mpi beside
    root: its CMakeCache.txt names mpi, and it is no SMPI, sanitizer or
    ThreadSanitizer build."""
    for cache in sorted(glob.glob(os.path.join(os.path.dirname(root), "*", "CMakeCache.txt"))):
        d = os.path.dirname(cache)
        bench = os.path.join(d, "tools", "resonio-bench", "resonio-bench")
        if (cache_value(d, "RESONIO_MPI") == mpi and os.path.exists(bench) and
                all(cache_value(d, k) not in ("ON", "TRUE", "1")
                    for k in ("RESONIO_SMPI", "RESONIO_SANITIZE", "RESONIO_TSAN"))):
            return os.path.abspath(bench), d
    die("no build of resonio-bench for %s beside %s: build one (./run.sh main --suite overlap "
        "builds both) or name its resonio-bench with --other" % (mpi, root))


def quant(xs, q):
    """The q-quantile of xs (nearest rank), None when empty."""
    xs = sorted(xs)
    if not xs:
        return None
    return xs[max(0, min(len(xs) - 1, int(math.ceil(q * len(xs))) - 1))]


def bench_json(out):
    """The bench's JSON document in directory out, or None."""
    js = glob.glob(os.path.join(out, "*.json"))
    if not js:
        return None
    with open(js[0]) as f:
        return json.load(f)


def phases(doc):
    """(segment or None, implementation, "write" or "read", that phase's
    JSON, verified) for every phase an implementation ran in a bench
    document."""
    for p in (doc or {}).get("points", []):
        for r in p["impls"]:
            for ph in ("write", "read"):
                if r.get(ph):
                    yield p["params"].get("seg"), r["impl"], ph, r[ph], bool(r.get("verified"))


def fmt(x, f="%.0f"):
    return "—" if x is None else f % x


def size_name(b):
    return "%dk" % (b // 1024) if b < 1 << 20 else "%dm" % (b >> 20)
