#!/usr/bin/python3
"""i_h5py.py — h5py's mpio driver on top of the MPI-IO it is given.

A plain h5py program (Debian's python3-h5py-mpi, built on Open MPI's
parallel HDF5, and nothing of resonio) for dropin.sh: run as is, HDF5 does
its I/O through the MPI library's own MPI-IO; run with libresonio-mpiio
preloaded, through resonio.

`-mode write` (the default) creates the file named by -fname with
h5py.File(..., 'w', driver='mpio') and two datasets of N x M int32,
element (i, j) of dataset d = value(d, i, j):
  rows      rank r writes a block of rows, collectively (dset.collective)
  columns   rank r writes the columns j = r mod P (a strided hyperslab,
            interleaved between the ranks), collectively
then reopens it and reads every dataset whole, collectively, on every
rank, and checks each element.  `-mode read` opens a file written by
either implementation and checks it the same way.

`-compare A B` (run without mpiexec) is dropin.sh's comparison: the two
files' datasets (names, shapes, types, every element) and attributes must
be equal.  The files' bytes are not compared: HDF5's metadata (object
headers, free-space and allocation decisions) may legitimately differ
between two correct runs, and what the program asked for is the data.

It prints "implementation: resonio" when MPI_File_get_info of a file
opened through mpi4py in the same process reports resonio's own hint
resonio_indep_method and libresonio-mpiio is mapped into the process
(HDF5's MPI_File_* calls resolve to the same definitions), "native" when
neither holds, and "No Errors" when every check passed.
"""
import os
import sys

os.environ.setdefault("H5PY_ALWAYS_USE_MPI", "1")  # Debian's h5py: the MPI build

try:
    import numpy as np
    from mpi4py import MPI
    import h5py
except ImportError as e:  # a test that cannot run fails, saying why
    print(f"FAIL: {e}: install python3-h5py-mpi, python3-mpi4py and python3-numpy (Debian)")
    sys.exit(1)

N, M = 96, 120
SETS = ("rows", "columns")


def arg(name, default):
    a = sys.argv
    return a[a.index(name) + 1] if name in a[:-1] else default


def value(d, i, j):
    return ((d * 1000003 + i * M + j) ^ 0x5A5A).astype(np.int32)


def grid(d):
    i, j = np.meshgrid(np.arange(N), np.arange(M), indexing="ij")
    return value(d, i, j)


def compare(a, b):
    """Serial: every dataset and attribute of a and b equal."""
    errs = 0
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        names = sorted(fa.keys())
        if names != sorted(fb.keys()):
            print(f"FAIL: datasets {names} vs {sorted(fb.keys())}")
            return 1
        for name in names:
            da, db = fa[name], fb[name]
            if da.shape != db.shape or da.dtype != db.dtype:
                print(f"FAIL: {name}: {da.shape} {da.dtype} vs {db.shape} {db.dtype}")
                errs += 1
            elif not np.array_equal(da[()], db[()]):
                print(f"FAIL: {name}: the elements differ")
                errs += 1
        if dict(fa.attrs) != dict(fb.attrs):
            print(f"FAIL: attributes {dict(fa.attrs)} vs {dict(fb.attrs)}")
            errs += 1
    if errs == 0:
        same_bytes = open(a, "rb").read() == open(b, "rb").read()
        print(f"datasets identical: {', '.join(names)} ({N} x {M} int32 each); file bytes "
              f"{'identical' if same_bytes else 'differ (metadata, which is not compared)'}")
    return errs


def main():
    if "-compare" in sys.argv[:-2]:
        k = sys.argv.index("-compare")
        sys.exit(1 if compare(sys.argv[k + 1], sys.argv[k + 2]) else 0)

    comm = MPI.COMM_WORLD
    rank, nprocs = comm.Get_rank(), comm.Get_size()
    errors = []

    def check(cond, msg):
        if not cond:
            errors.append(msg)
            print(f"[{rank}] {msg}", flush=True)

    check(h5py.get_config().mpi, "h5py is not the MPI build: install python3-h5py-mpi")
    name = arg("-fname", "i_h5py")
    mode = arg("-mode", "write")

    # which MPI-IO serves this process
    probe = f"{name}.probe.{rank}"
    fh = MPI.File.Open(MPI.COMM_SELF, probe, MPI.MODE_CREATE | MPI.MODE_RDWR | MPI.MODE_DELETE_ON_CLOSE)
    info = fh.Get_info()
    has_key = info.Get("resonio_indep_method") is not None
    info.Free()
    fh.Close()
    with open("/proc/self/maps") as m:
        mapped = "libresonio-mpiio" in m.read()
    check(has_key == mapped, f"resonio hint reported: {has_key}, library mapped: {mapped}")
    mine = int(has_key and mapped)
    lo, hi = comm.allreduce(mine, op=MPI.MIN), comm.allreduce(mine, op=MPI.MAX)
    if rank == 0:
        print("implementation: %s" % ("mixed" if lo != hi else "resonio" if lo else "native"),
              flush=True)
    check(lo == hi, "ranks use different implementations")

    if mode == "write":
        with h5py.File(name, "w", driver="mpio", comm=comm) as f:
            f.attrs["ranks"] = np.int32(nprocs)
            rows = f.create_dataset("rows", (N, M), dtype="i4")
            cols = f.create_dataset("columns", (N, M), dtype="i4")
            a, b = N * rank // nprocs, N * (rank + 1) // nprocs
            with rows.collective:
                rows[a:b, :] = grid(0)[a:b, :]
            with cols.collective:
                cols[:, rank::nprocs] = grid(1)[:, rank::nprocs]
    elif mode != "read":
        check(False, f"unknown -mode {mode}")

    with h5py.File(name, "r", driver="mpio", comm=comm) as f:
        for d, s in enumerate(SETS):
            dset = f[s]
            with dset.collective:
                got = dset[()]
            bad = np.argwhere(got != grid(d))
            check(bad.size == 0, f"{s}: {len(bad)} elements wrong, first at "
                  f"{tuple(bad[0]) if len(bad) else None}")

    total = comm.allreduce(len(errors), op=MPI.SUM)
    if rank == 0:
        print(" No Errors" if total == 0 else f" Found {total} errors", flush=True)


main()
