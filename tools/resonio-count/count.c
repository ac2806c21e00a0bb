/*
 * count.c — the counting layer: a profiling library (LD_PRELOAD it) that
 * counts, for each rank, the messages it sends while a window is open,
 * sorted into collective, metadata and data messages (rio_count.h).
 *
 * Where it counts.  A profiling layer that only wraps the MPI_ names sees
 * the calls a program makes, not the messages an MPI library sends inside
 * its own MPI-IO or inside a collective operation: OMPIO calls Open MPI's
 * point-to-point and collective modules directly.  So the layer counts one
 * level down, where every message of both passes: Open MPI's
 * point-to-point module table (mca_pml), whose send entries it wraps after
 * MPI_Init, as Open MPI's own monitoring component does.  (That component's
 * MPI_T variables would say the same, but Open MPI 4.1 withdraws them at
 * MPI_Init; its counts are only written out at MPI_Finalize.)  resonio's
 * messages and native's are thus counted the same way, each at the moment
 * it is handed to the point-to-point layer, with its tag and size.
 *
 * Classes.  A negative tag is a collective operation's (Open MPI keeps the
 * negative tags for itself; OMPIO gathers its file indexes with them too).
 * Non-negative tags are point-to-point: metadata when the message is
 * empty, carries one of resonio's data-less tags (coll/tags.h) or is made
 * of a predefined integer type (OMPIO sends its read path's indexes as
 * MPI_LONG and MPI_INT with its own tags), and file data otherwise.  A
 * message a rank sends to itself is not counted (OMPIO's aggregators send
 * their own share so; resonio copies it).  The window is the process's:
 * every thread's sends count while it is open.
 *
 * Storage requests are counted where every MPI-IO implementation makes
 * them on a local or mounted file system: the C library's positioned reads
 * and writes (resonio's posix driver, ROMIO's and OMPIO's), which the layer
 * wraps by their names.  Requests through io_uring or a storage library
 * (librados, libcephfs) pass elsewhere and are not counted.
 *
 * Under MPICH there is no point-to-point table to reach; the layer says so
 * once and counts nothing, so a program's counts stay absent rather than
 * partial.
 */
#include "rio_count.h"
#include "../../src/coll/tags.h"

#include <dlfcn.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#if defined(OPEN_MPI) && OPEN_MPI && defined(RIO_COUNT_PML)
#include "ompi_config.h"
#include "ompi/mca/pml/pml.h"
#define HAVE_PML 1
#else
#define HAVE_PML 0
#endif

static int window;
static long long msgs[RIO_COUNT_NCLASS], bytes[RIO_COUNT_NCLASS];
static long long io_reqs, io_bytes;
static int hooked;

/* ---- storage requests: the C library's positioned reads and writes ----------- */

static void *next(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

static ssize_t io_note(ssize_t n)
{
    if (__atomic_load_n(&window, __ATOMIC_RELAXED)) {
        __atomic_add_fetch(&io_reqs, 1, __ATOMIC_RELAXED);
        if (n > 0)
            __atomic_add_fetch(&io_bytes, (long long)n, __ATOMIC_RELAXED);
    }
    return n;
}

/* pwrite(fd, buf, n, off) and its kin, each by the next definition of its
 * own name (the C library's) */
#define RIO_POSITIONED(name, buftype, offtype)                                      \
    ssize_t name(int fd, buftype buf, size_t n, offtype off)                         \
    {                                                                                \
        static ssize_t (*real)(int, buftype, size_t, offtype);                       \
        if (!real)                                                                   \
            real = (ssize_t(*)(int, buftype, size_t, offtype))next(#name);           \
        return io_note(real(fd, buf, n, off));                                       \
    }
RIO_POSITIONED(pwrite, const void *, off_t)
RIO_POSITIONED(pwrite64, const void *, off64_t)
RIO_POSITIONED(pread, void *, off_t)
RIO_POSITIONED(pread64, void *, off64_t)
#define RIO_VECTORED(name, offtype)                                                  \
    ssize_t name(int fd, const struct iovec *iov, int cnt, offtype off)              \
    {                                                                                \
        static ssize_t (*real)(int, const struct iovec *, int, offtype);             \
        if (!real)                                                                   \
            real = (ssize_t(*)(int, const struct iovec *, int, offtype))next(#name); \
        return io_note(real(fd, iov, cnt, off));                                     \
    }
RIO_VECTORED(pwritev, off_t)
RIO_VECTORED(pwritev64, off64_t)
RIO_VECTORED(preadv, off_t)
RIO_VECTORED(preadv64, off64_t)

/* ---- messages ---------------------------------------------------------------- */

#if HAVE_PML
/* The predefined integer types: offsets, lengths and counts travel in
 * them, file data does not (it goes as bytes or as a derived type over
 * the caller's buffer, in resonio and in both MPI libraries' MPI-IO). */
static int integer_type(MPI_Datatype dt)
{
    static const MPI_Datatype ints[] = {
        MPI_INT,      MPI_UNSIGNED,      MPI_LONG,      MPI_UNSIGNED_LONG, MPI_LONG_LONG,
        MPI_UNSIGNED_LONG_LONG, MPI_SHORT, MPI_OFFSET, MPI_AINT,      MPI_COUNT,
        MPI_INT32_T,  MPI_INT64_T,       MPI_UINT32_T,  MPI_UINT64_T};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (dt == ints[i])
            return 1;
    return 0;
}

static int class_of(int tag, long long n, MPI_Datatype dt)
{
    if (tag < 0)
        return RIO_COUNT_COLL;
    if (n == 0 || tag == RIO_TAG_META || tag == RIO_TAG_TOKEN || tag == RIO_TAG_TURN ||
        tag == RIO_TAG_ROWS || integer_type(dt))
        return RIO_COUNT_META;
    return RIO_COUNT_DATA;
}

static void note(int tag, size_t count, MPI_Datatype dt, int dst, MPI_Comm comm)
{
    if (!__atomic_load_n(&window, __ATOMIC_RELAXED))
        return;
    int me = -1, size = 0;
    PMPI_Comm_rank(comm, &me);
    if (dst == me)
        return; /* a message to itself crosses nothing */
    PMPI_Type_size(dt, &size);
    long long n = (long long)count * size;
    int c = class_of(tag, n, dt);
    __atomic_add_fetch(&msgs[c], 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&bytes[c], n, __ATOMIC_RELAXED);
}

static mca_pml_base_module_isend_init_fn_t real_isend_init;
static mca_pml_base_module_isend_fn_t real_isend;
static mca_pml_base_module_send_fn_t real_send;

/* A persistent send is counted once, when it is made. */
static int count_isend_init(const void *buf, size_t count, struct ompi_datatype_t *dt, int dst,
                            int tag, mca_pml_base_send_mode_t mode,
                            struct ompi_communicator_t *comm, struct ompi_request_t **req)
{
    note(tag, count, (MPI_Datatype)dt, dst, (MPI_Comm)comm);
    return real_isend_init(buf, count, dt, dst, tag, mode, comm, req);
}

static int count_isend(const void *buf, size_t count, struct ompi_datatype_t *dt, int dst,
                       int tag, mca_pml_base_send_mode_t mode, struct ompi_communicator_t *comm,
                       struct ompi_request_t **req)
{
    note(tag, count, (MPI_Datatype)dt, dst, (MPI_Comm)comm);
    return real_isend(buf, count, dt, dst, tag, mode, comm, req);
}

static int count_send(const void *buf, size_t count, struct ompi_datatype_t *dt, int dst, int tag,
                      mca_pml_base_send_mode_t mode, struct ompi_communicator_t *comm)
{
    note(tag, count, (MPI_Datatype)dt, dst, (MPI_Comm)comm);
    return real_send(buf, count, dt, dst, tag, mode, comm);
}
#endif

static void hook(void)
{
#if HAVE_PML
    real_isend_init = mca_pml.pml_isend_init;
    real_isend = mca_pml.pml_isend;
    real_send = mca_pml.pml_send;
    mca_pml.pml_isend_init = count_isend_init;
    mca_pml.pml_isend = count_isend;
    mca_pml.pml_send = count_send;
    hooked = 1;
#else
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        fprintf(stderr, "librio_count: this MPI library's point-to-point layer cannot be "
                        "reached (built for Open MPI only); nothing is counted\n");
#endif
}

static void unhook(void)
{
#if HAVE_PML
    if (hooked) {
        mca_pml.pml_isend_init = real_isend_init;
        mca_pml.pml_isend = real_isend;
        mca_pml.pml_send = real_send;
        hooked = 0;
    }
#endif
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        hook();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        hook();
    return rc;
}

int MPI_Finalize(void)
{
    unhook();
    return PMPI_Finalize();
}

int MPI_Pcontrol(const int level, ...)
{
    if (level == 0 || level == 1) {
        __atomic_store_n(&window, level, __ATOMIC_RELAXED);
    } else if (level == 2) {
        va_list ap;
        va_start(ap, level);
        struct rio_count *out = va_arg(ap, struct rio_count *);
        va_end(ap);
        if (out && hooked) {
            memset(out, 0, sizeof *out);
            out->magic = RIO_COUNT_MAGIC;
            out->seen_pml = 1;
            for (int c = 0; c < RIO_COUNT_NCLASS; c++) {
                out->msgs[c] = __atomic_exchange_n(&msgs[c], 0, __ATOMIC_RELAXED);
                out->bytes[c] = __atomic_exchange_n(&bytes[c], 0, __ATOMIC_RELAXED);
            }
            out->io_reqs = __atomic_exchange_n(&io_reqs, 0, __ATOMIC_RELAXED);
            out->io_bytes = __atomic_exchange_n(&io_bytes, 0, __ATOMIC_RELAXED);
        }
    }
    return MPI_SUCCESS;
}
