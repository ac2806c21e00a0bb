/*
 * t_coll_noall2all.c — stripe with same_io_size=yes and contiguous_data=yes
 * makes no all-to-all.
 *
 * This program defines MPI_Alltoall, MPI_Alltoallv, MPI_Alltoallw,
 * MPI_Allgather, MPI_Allgatherv, their nonblocking versions (and, with
 * MPI-4 headers, their large-count versions) itself: each counts the call
 * and then calls the PMPI_ version (the profiling interface).  The
 * executable exports them (ENABLE_EXPORTS), so libresonio's calls land
 * here.  The counter is reset right before a collective write and read
 * right after it, so it counts exactly the calls resonio made inside the
 * write; MPI_Allreduce is counted too, for the messages only.  So is the
 * error agreement every collective call ends with, which on a few ranks
 * is an MPI_Allgather of MPI_LONG_LONG (resonio's summaries gather
 * MPI_OFFSET): it carries an error key and the selector's measurement,
 * not requests.
 *
 * Each rank writes one contiguous block of the same size at offset
 * rank * size with rio_file_write_at_all, over a layout of 4 targets of
 * 4096 bytes, with resonio_strategy=stripe:
 *   - with same_io_size=yes and contiguous_data=yes: no all-to-all-type
 *     call, neither in the first collective call on the file nor in a
 *     later one;
 *   - without the hints: the same write exchanges the ranks' summaries
 *     (count > 0), which shows that the counter sees resonio's calls.
 * Data is verified with POSIX reads each time, and rio_coll_last must say
 * stripe ran.
 */
#include "ctest_util.h"

#include <signal.h>

#define UNIT 4096
#define FACTOR 4
#define BLOCK (3 * UNIT + 100)

static long long n_a2a;       /* all-to-all-type calls */
static long long n_allreduce; /* for messages */

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    n_a2a++;
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm)
{
    n_a2a++;
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                          recvtype, comm);
}

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    n_a2a++;
    return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                          recvtypes, comm);
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    if (sendtype == MPI_LONG_LONG)
        n_allreduce++; /* the agreement */
    else
        n_a2a++;
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm)
{
    n_a2a++;
    return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                           comm);
}

int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    n_a2a++;
    return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                          request);
}

int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    n_a2a++;
    return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                           recvtype, comm, request);
}

int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                   MPI_Request *request)
{
    n_a2a++;
    return PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                           recvtypes, comm, request);
}

int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    n_a2a++;
    return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                           request);
}

int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request *request)
{
    n_a2a++;
    return PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                            comm, request);
}

#if MPI_VERSION >= 4
int MPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    n_a2a++;
    return PMPI_Alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    n_a2a++;
    return PMPI_Alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                            recvtype, comm);
}

int MPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    n_a2a++;
    return PMPI_Alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                            rdispls, recvtypes, comm);
}

int MPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    n_a2a++;
    return PMPI_Allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                     void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                     MPI_Datatype recvtype, MPI_Comm comm)
{
    n_a2a++;
    return PMPI_Allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                             comm);
}
#endif

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm)
{
    n_allreduce++;
    return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

/* ---- the test ------------------------------------------------------------------------ */

static char path[4200];

/* One collective write of the rank's block; returns the all-to-all-type
 * calls made inside it (this rank), and in *allreduce the MPI_Allreduce
 * calls and agreements. */
static long long counted_write(rio_file *fh, const unsigned char *buf, const char *what,
                               long long *allreduce)
{
    MPI_Status st;
    long long off = (long long)rt_rank * BLOCK;
    n_a2a = 0;
    n_allreduce = 0;
    int rc = rio_file_write_at_all(fh, off, buf, BLOCK, MPI_BYTE, &st);
    long long calls = n_a2a;
    *allreduce = n_allreduce;
    if (!RT_OK(rc))
        CHECK(0, "%s: the write failed", what);
    struct rio_coll_info in;
    if (ct_last(fh, &in))
        CHECK(!strcmp(in.strategy, "stripe"), "%s: ran %s (\"%s\"), expected stripe", what,
              in.strategy, in.reason);
    /* the data */
    MPI_Barrier(MPI_COMM_WORLD);
    unsigned char *b = malloc(BLOCK);
    long long got = rt_pread(path, b, BLOCK, off);
    CHECK(got == BLOCK, "%s: POSIX read of the rank's block gave %lld bytes", what, got);
    if (got == BLOCK)
        CHECK_PAT(b, BLOCK, rt_rank, off, "%s: the rank's block in the file", what);
    free(b);
    return calls;
}

static rio_file *open_stripe(int hints)
{
    rio_file *fh = RIO_FILE_NULL;
    char unit[16], factor[16];
    snprintf(unit, sizeof unit, "%d", UNIT);
    snprintf(factor, sizeof factor, "%d", FACTOR);
    ct_unlink_all(path);
    MPI_Info info = rt_info("resonio_strategy", "stripe", "striping_unit", unit, "striping_factor",
                            factor, "same_io_size", hints ? "yes" : NULL, "contiguous_data",
                            hints ? "yes" : NULL, NULL);
    int rc = rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
    MPI_Info_free(&info);
    return RT_OK(rc) ? fh : RIO_FILE_NULL;
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    signal(SIGALRM, ct_watchdog);
    alarm(120);
    rt_path(path, sizeof path, "noa2a");
    unsigned char *buf = malloc(BLOCK);
    rt_fill(buf, BLOCK, rt_rank, (long long)rt_rank * BLOCK);

    /* with the hints: the first collective call on the file and a later one */
    rio_file *fh = open_stripe(1);
    if (fh) {
        long long ar1, ar2;
        long long first = counted_write(fh, buf, "same_io_size+contiguous_data, first call", &ar1);
        long long later = counted_write(fh, buf, "same_io_size+contiguous_data, second call", &ar2);
        /* summed over ranks, checked on rank 0 (one message) */
        first = rt_sum(first);
        later = rt_sum(later);
        ar1 = rt_sum(ar1);
        ar2 = rt_sum(ar2);
        CHECK(rt_rank != 0 || first == 0,
              "stripe with same_io_size=yes and contiguous_data=yes: %lld all-to-all-type "
              "call(s) (and %lld agreements), summed over the ranks, inside the first collective write on the file, "
              "expected no all-to-all",
              first, ar1);
        CHECK(rt_rank != 0 || later == 0,
              "stripe with same_io_size=yes and contiguous_data=yes: %lld all-to-all-type "
              "call(s) (and %lld agreements), summed over the ranks, inside a later collective write, expected no "
              "all-to-all",
              later, ar2);
        RT_OK(rio_file_close(&fh));
    }

    /* without them the ranks exchange their summaries: the counter works */
    fh = open_stripe(0);
    if (fh) {
        long long ar;
        counted_write(fh, buf, "no hints, first call", &ar);
        long long later = rt_sum(counted_write(fh, buf, "no hints, second call", &ar));
        CHECK(rt_rank != 0 || later > 0,
              "stripe without the hints made no all-to-all-type call: the counter does not see "
              "resonio's calls (or the summary exchange is missing)");
        RT_OK(rio_file_close(&fh));
    }
    free(buf);
    alarm(0);
    if (rt_rank == 0)
        unlink(path);
    return rt_finish();
}
