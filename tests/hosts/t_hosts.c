/*
 * t_hosts.c — what an MPI job sees on the hosts of tools/resonio-hosts.
 *
 *   t_hosts H [-sleep S]
 *
 * With the ranks spread over H hosts by the cluster's host file: exactly H
 * distinct processor names (MPI_Get_processor_name), each the node of
 * MPI_COMM_TYPE_SHARED (the ranks of a shared-memory communicator have one
 * name, and ranks with one name share one communicator); every rank has
 * ranks on other hosts when H > 1; 1 MiB travels from each rank to the
 * next (a ring crossing the hosts) and arrives intact.  -sleep S then
 * waits S seconds (a job for the test to kill).  Rank 0 prints "No
 * Errors" when all ranks agree.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NAME_MAX_ MPI_MAX_PROCESSOR_NAME
#define RING (1 << 20)

int main(int argc, char **argv)
{
    int rank, size, errs = 0, len, want = argc > 1 ? atoi(argv[1]) : 0;
    int sleep_s = argc > 3 && !strcmp(argv[2], "-sleep") ? atoi(argv[3]) : 0;
    char name[NAME_MAX_];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    memset(name, 0, sizeof name);
    MPI_Get_processor_name(name, &len);

    char *all = malloc((size_t)size * NAME_MAX_);
    MPI_Allgather(name, NAME_MAX_, MPI_CHAR, all, NAME_MAX_, MPI_CHAR, MPI_COMM_WORLD);
    int distinct = 0, same = 0;
    for (int r = 0; r < size; r++) {
        int first = 1;
        for (int q = 0; q < r; q++)
            first &= strcmp(all + (size_t)q * NAME_MAX_, all + (size_t)r * NAME_MAX_) != 0;
        distinct += first;
        same += !strcmp(all + (size_t)r * NAME_MAX_, name);
    }
    if (distinct != want) {
        printf("[%d] %d distinct processor names, expected %d hosts\n", rank, distinct, want);
        errs++;
    }
    MPI_Comm node;
    int nsize, nrank;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nsize);
    MPI_Comm_rank(node, &nrank);
    if (nsize != same) {
        printf("[%d] on %s: the shared-memory communicator has %d ranks, but %d ranks have this "
               "processor name\n", rank, name, nsize, same);
        errs++;
    }
    /* a ring: rank r sends to r + 1, which lies on another host at the
     * host file's boundaries */
    unsigned char *out = malloc(RING), *in = malloc(RING);
    for (int i = 0; i < RING; i++)
        out[i] = (unsigned char)(i * 7 + rank);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Sendrecv(out, RING, MPI_BYTE, to, 0, in, RING, MPI_BYTE, from, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (int i = 0; i < RING; i++)
        if (in[i] != (unsigned char)(i * 7 + from)) {
            printf("[%d] ring: byte %d from rank %d is %d\n", rank, i, from, in[i]);
            errs++;
            break;
        }
    printf("[%d] on %s: node rank %d of %d\n", rank, name, nrank, nsize);
    fflush(stdout);
    if (sleep_s > 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            printf("sleeping %d s\n", sleep_s);
            fflush(stdout);
        }
        sleep((unsigned)sleep_s);
    }
    int total = 0;
    MPI_Reduce(&errs, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf(" No Errors\n");
    free(out);
    free(in);
    free(all);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return total != 0;
}
