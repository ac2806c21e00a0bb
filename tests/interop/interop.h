/*
 * interop.h — what the drop-in programs share (after rtest.h).
 *
 * Each prints which implementation served its MPI-IO, so dropin.sh can
 * tell the plain run from the preloaded one: resonio when rio_file_open
 * can be found in the process (libresonio-mpiio preloaded), else the MPI
 * library's own.
 */
#ifndef INTEROP_H
#define INTEROP_H

#include <dlfcn.h>

static inline void rt_print_implementation(void)
{
    int resonio = dlsym(RTLD_DEFAULT, "rio_file_open") != NULL, lo = 0, hi = 0;
    MPI_Allreduce(&resonio, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&resonio, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rt_rank == 0)
        printf("implementation: %s\n", lo != hi ? "mixed" : lo ? "resonio" : "native");
    CHECK(lo == hi, "ranks use different implementations");
}

#endif /* INTEROP_H */
