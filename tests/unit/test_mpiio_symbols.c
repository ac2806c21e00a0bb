/*
 * test_mpiio_symbols.c — a program linked with libresonio-mpiio gets
 * resonio's MPI_File_* functions, not the MPI library's.
 *
 * The drop-in works only if symbol lookup finds libresonio-mpiio before the
 * MPI library, which defines the same names.  For a few names this checks,
 * with dladdr(), that both the address the program itself uses and the one
 * the global lookup returns (dlsym(RTLD_DEFAULT), what a shared library
 * such as HDF5 would be bound to) lie in libresonio-mpiio, and that MPI_ is
 * an alias of PMPI_.  Then it checks the handle conversion that is the
 * layer's only logic: the null handle maps to Fortran 0 and back, a file
 * opened and closed through MPI_File_* round-trips its handle and ends as
 * MPI_FILE_NULL, a failed open stores MPI_FILE_NULL, and MPI_FILE_NULL
 * reaches the default file error handler.
 *
 * Runs as an MPI singleton (no launcher); argv[1] is a scratch directory.
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int passed, failed;

static void check(int ok, const char *what)
{
    if (ok) {
        passed++;
    } else {
        failed++;
        fprintf(stderr, "FAIL: %s\n", what);
    }
}

/* Whether addr lies in the libresonio-mpiio shared object. */
static int in_mpiio(void *addr, const char *name)
{
    Dl_info info;

    if (addr == NULL || dladdr(addr, &info) == 0 || info.dli_fname == NULL) {
        fprintf(stderr, "%s: no shared object found for %p\n", name, addr);
        return 0;
    }
    if (strstr(info.dli_fname, "libresonio-mpiio") == NULL) {
        fprintf(stderr, "%s resolves into %s\n", name, info.dli_fname);
        return 0;
    }
    return 1;
}

/* The name as the program sees it (addr) and as the global lookup sees it. */
static void check_symbol(void *addr, const char *name)
{
    char what[160];

    snprintf(what, sizeof what, "%s, as linked, is in libresonio-mpiio", name);
    check(in_mpiio(addr, name), what);
    snprintf(what, sizeof what, "%s, as looked up, is in libresonio-mpiio", name);
    check(in_mpiio(dlsym(RTLD_DEFAULT, name), name), what);
}

static void test_symbols(void)
{
    check_symbol((void *)MPI_File_open, "MPI_File_open");
    check_symbol((void *)PMPI_File_open, "PMPI_File_open");
    check_symbol((void *)MPI_File_write_all, "MPI_File_write_all");
    check_symbol((void *)MPI_File_set_errhandler, "MPI_File_set_errhandler");
    check_symbol((void *)MPI_File_c2f, "MPI_File_c2f");
#if MPI_VERSION >= 4
    check_symbol((void *)MPI_File_read_at_c, "MPI_File_read_at_c");
#endif
    check((void *)MPI_File_open == (void *)PMPI_File_open,
          "MPI_File_open is an alias of PMPI_File_open");
    check((void *)MPI_File_write_all == (void *)PMPI_File_write_all,
          "MPI_File_write_all is an alias of PMPI_File_write_all");
}

static void test_null_handle(void)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;

    check(MPI_File_c2f(MPI_FILE_NULL) == 0, "MPI_File_c2f(MPI_FILE_NULL) == 0");
    check(MPI_File_f2c(0) == MPI_FILE_NULL, "MPI_File_f2c(0) == MPI_FILE_NULL");
    check(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN) == MPI_SUCCESS,
          "MPI_File_set_errhandler(MPI_FILE_NULL) succeeds");
    check(MPI_File_get_errhandler(MPI_FILE_NULL, &eh) == MPI_SUCCESS && eh == MPI_ERRORS_RETURN,
          "MPI_File_get_errhandler(MPI_FILE_NULL) returns the default handler");
}

static void test_open_close(const char *dir)
{
    static char sentinel;
    char name[4096];
    MPI_File fh = MPI_FILE_NULL;
    MPI_Fint f;
    int amode, err;

    snprintf(name, sizeof name, "%s/test_mpiio_symbols.%ld", dir, (long)getpid());
    amode = MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE;
    err = MPI_File_open(MPI_COMM_SELF, name, amode, MPI_INFO_NULL, &fh);
    check(err == MPI_SUCCESS && fh != MPI_FILE_NULL, "MPI_File_open creates a file");
    if (err != MPI_SUCCESS)
        return;
    f = MPI_File_c2f(fh);
    check(f != 0 && MPI_File_f2c(f) == fh, "MPI_File_f2c(MPI_File_c2f(fh)) == fh");
    check(MPI_File_close(&fh) == MPI_SUCCESS && fh == MPI_FILE_NULL,
          "MPI_File_close succeeds and sets MPI_FILE_NULL");

    /* A failed open must overwrite the handle too. */
    snprintf(name, sizeof name, "%s/test_mpiio_symbols.missing/none", dir);
    fh = (MPI_File)(void *)&sentinel;
    err = MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    check(err != MPI_SUCCESS && fh == MPI_FILE_NULL, "failed MPI_File_open gives MPI_FILE_NULL");
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";

    MPI_Init(&argc, &argv);
    test_symbols();
    test_null_handle();
    test_open_close(dir);
    MPI_Finalize();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
