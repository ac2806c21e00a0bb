#!/usr/bin/python3
"""i_mpi4py.py — mpi4py's MPI.File on top of the MPI-IO it is given.

A plain mpi4py program (Debian's python3-mpi4py, built on Open MPI, and
nothing of resonio) for dropin.sh: run as is, MPI.File is the MPI
library's own MPI-IO; run with libresonio-mpiio preloaded, resonio's.

`-mode write` (the default) creates the file named by -fname: every rank
sets a view whose filetype is noncontiguous (NB blocks of BL ints, the
ranks' blocks interleaved), writes its ints with Write_all and reads them
back with Read_all; then rank 0 reads the file with plain Python and
checks every int.  `-mode read` opens a file written by either
implementation and reads it through the same view.  Int i of the file is
value(i), so the file does not depend on the implementation and
dropin.sh compares the two files byte for byte.

It prints "implementation: resonio" when MPI_File_get_info reports
resonio's own hint resonio_indep_method and libresonio-mpiio is mapped into
the process, "native" when neither holds ("mixed" otherwise, an error),
and "No Errors" when every check passed.  Python 3 from Debian
(/usr/bin/python3), where the packages are installed.
"""
import os
import sys

try:
    import numpy as np
    from mpi4py import MPI
except ImportError as e:  # a test that cannot run fails, saying why
    print(f"FAIL: {e}: install python3-mpi4py and python3-numpy (Debian)")
    sys.exit(1)

NB = 16  # blocks per tile of the view
BL = 96  # ints per block
TILES = 3

comm = MPI.COMM_WORLD
rank, nprocs = comm.Get_rank(), comm.Get_size()
errors = []


def check(cond, msg):
    if not cond:
        errors.append(msg)
        print(f"[{rank}] {msg}", flush=True)


def arg(name, default):
    a = sys.argv
    return a[a.index(name) + 1] if name in a[:-1] else default


def value(i):
    """Int i of the file: distinct for neighbours, so a shifted int shows."""
    return ((i * 2654435761 + 12345) & 0x7FFFFFFF).astype(np.int32)


def uses_resonio(fh):
    """1 if resonio serves this process's MPI-IO, 0 if the MPI library does."""
    info = fh.Get_info()
    has_key = info.Get("resonio_indep_method") is not None
    info.Free()
    with open("/proc/self/maps") as m:
        mapped = "libresonio-mpiio" in m.read()
    check(has_key == mapped, f"resonio hint reported: {has_key}, library mapped: {mapped}")
    return int(has_key and mapped)


def view(fh):
    """Rank r's blocks are r, r + P, r + 2P, ... of BL ints each."""
    vec = MPI.INT.Create_vector(NB, BL, BL * nprocs)
    ft = vec.Create_resized(0, NB * BL * nprocs * 4)
    ft.Commit()
    fh.Set_view(rank * BL * 4, MPI.INT, ft, "native")
    vec.Free()
    return ft


def my_positions():
    """File int indices of this rank's data, in the order of its stream."""
    k = np.arange(TILES * NB * BL, dtype=np.int64)
    block, within = k // BL, k % BL
    return (block * nprocs + rank) * BL + within


def report_implementation(fh):
    mine = uses_resonio(fh)
    lo = comm.allreduce(mine, op=MPI.MIN)
    hi = comm.allreduce(mine, op=MPI.MAX)
    if rank == 0:
        print("implementation: %s" % ("mixed" if lo != hi else "resonio" if lo else "native"),
              flush=True)
    check(lo == hi, "ranks use different implementations")


def write(name):
    if rank == 0 and os.path.exists(name):
        os.remove(name)
    comm.Barrier()
    fh = MPI.File.Open(comm, name, MPI.MODE_CREATE | MPI.MODE_RDWR)
    report_implementation(fh)
    ft = view(fh)
    out = value(my_positions())
    fh.Write_all(out)
    back = np.full_like(out, -1)
    st = MPI.Status()
    fh.Seek(0)
    fh.Read_all(back, st)
    check(st.Get_count(MPI.INT) == out.size, f"Read_all count {st.Get_count(MPI.INT)}")
    bad = np.flatnonzero(back != out)
    check(bad.size == 0, f"Read_all: {bad.size} ints differ, first at stream index "
          f"{bad[0] if bad.size else -1}")
    fh.Close()
    ft.Free()
    comm.Barrier()
    if rank == 0:  # the file itself, with plain reads
        n = TILES * NB * BL * nprocs
        data = np.fromfile(name, dtype=np.int32)
        check(data.size == n, f"{name} holds {data.size} ints, expected {n}")
        m = min(n, data.size)
        bad = np.flatnonzero(data[:m] != value(np.arange(m, dtype=np.int64)))
        check(bad.size == 0, f"{name}: {bad.size} ints wrong, first at int {bad[0] if bad.size else -1}")


def read(name):
    fh = MPI.File.Open(comm, name, MPI.MODE_RDONLY)
    report_implementation(fh)
    ft = view(fh)
    want = value(my_positions())
    back = np.full_like(want, -1)
    fh.Read_all(back)
    bad = np.flatnonzero(back != want)
    check(bad.size == 0, f"Read_all of {name}: {bad.size} ints differ")
    fh.Close()
    ft.Free()


def main():
    name = arg("-fname", "i_mpi4py")
    mode = arg("-mode", "write")
    if mode == "write":
        write(name)
    elif mode == "read":
        read(name)
    else:
        check(False, f"unknown -mode {mode}")
    total = comm.allreduce(len(errors), op=MPI.SUM)
    if rank == 0:
        print(" No Errors" if total == 0 else f" Found {total} errors", flush=True)


main()
