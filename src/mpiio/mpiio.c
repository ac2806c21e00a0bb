/*
 * mpiio.c — the drop-in layer: MPI_File_* and PMPI_File_* on top of resonio.
 *
 * libresonio-mpiio lets an unchanged application (or HDF5, PnetCDF, IOR)
 * run its MPI-IO on resonio: linked before the MPI library, or preloaded,
 * its definitions of the standard's I/O functions are found first, so every
 * MPI_File_* call lands here instead of in ROMIO or OMPIO.  Each function is
 * a forward to its rio_file_* twin in resonio.h, which does all the work:
 * argument checks, error handlers, error codes.  This file adds nothing but
 * the conversion between MPI_File and rio_file * handles.
 *
 * Why handle conversion.  Both handle types are pointers, and a resonio
 * handle is stored in an MPI_File unchanged.  Only the null handle differs:
 * MPICH's MPI_FILE_NULL is a null pointer, Open MPI's is the address of a
 * global object.  to_rio() and to_mpi() map MPI_FILE_NULL to RIO_FILE_NULL
 * and back, so e.g. MPI_File_set_errhandler(MPI_FILE_NULL, eh) reaches
 * rio_file_set_errhandler(NULL, eh) and sets the default file error handler
 * under either MPI, and a failed or closed file reads MPI_FILE_NULL.
 *
 * Why weak aliases.  The profiling interface needs both names: a tool
 * defines MPI_File_write (to count calls, say) and calls PMPI_File_write to
 * do the work.  So PMPI_ is the real definition and MPI_ an alias of the
 * same code, made weak so that a tool's own MPI_File_write replaces it
 * without a duplicate-definition error even when both are linked
 * statically; in a dynamic link the tool, found first, wins anyway, and its
 * PMPI_File_write call still reaches resonio.  The library is built with
 * -fvisibility=hidden, so both names are exported explicitly.
 *
 * The prototypes are those of the MPI library's own header (mpi.h, and
 * MPICH's mpio.h, which mpi.h includes); the compiler checks each
 * definition against them.  The MPI-4 large-count (_c) functions are
 * defined exactly when the header is MPI-4 (MPICH 4), as resonio.h declares
 * their twins.
 */
#include <mpi.h>
#include <stddef.h>

#include "resonio.h"

/* Some MPI headers once defined these as macros; ours must be functions. */
#ifdef MPI_File_f2c
#undef MPI_File_f2c
#endif
#ifdef MPI_File_c2f
#undef MPI_File_c2f
#endif

/* ---- handle conversion ------------------------------------------------ */

static inline rio_file *to_rio(MPI_File fh)
{
    return fh == MPI_FILE_NULL ? RIO_FILE_NULL : (rio_file *)fh;
}

static inline MPI_File to_mpi(rio_file *fh)
{
    return fh == RIO_FILE_NULL ? MPI_FILE_NULL : (MPI_File)fh;
}

/* ---- definition macros -------------------------------------------------
 * ALIAS(ret, name, params) declares <name> as an exported weak alias of
 * P<name>; the use site supplies the semicolon.
 * FORWARD(ret, name, params, expr) defines the exported function P<name>
 * returning expr, then declares <name> as its alias.  params is the
 * parenthesised parameter list exactly as the MPI header has it.          */

#define EXPORT __attribute__((visibility("default")))

#define ALIAS(ret, name, params) EXPORT ret name params __attribute__((weak, alias("P" #name)))

#define FORWARD(ret, name, params, ...)                    \
    EXPORT ret P##name params { return __VA_ARGS__; }     \
    ALIAS(ret, name, params)

/* ---- file manipulation ------------------------------------------------ */

/* The new handle is stored also on failure (MPI_FILE_NULL then).  A null
 * fh is passed on as NULL so that resonio reports the invalid argument. */
EXPORT int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info,
                          MPI_File *fh)
{
    rio_file *file = RIO_FILE_NULL;
    int err = rio_file_open(comm, filename, amode, info, fh != NULL ? &file : NULL);

    if (fh != NULL)
        *fh = to_mpi(file);
    return err;
}
ALIAS(int, MPI_File_open,
      (MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh));

/* *fh becomes MPI_FILE_NULL after a successful close; on failure it keeps
 * whatever resonio left in the handle. */
EXPORT int PMPI_File_close(MPI_File *fh)
{
    rio_file *file;
    int err;

    if (fh == NULL)
        return rio_file_close(NULL);
    file = to_rio(*fh);
    err = rio_file_close(&file);
    *fh = to_mpi(file);
    return err;
}
ALIAS(int, MPI_File_close, (MPI_File *fh));

FORWARD(int, MPI_File_delete, (const char *filename, MPI_Info info),
        rio_file_delete(filename, info));
FORWARD(int, MPI_File_set_size, (MPI_File fh, MPI_Offset size),
        rio_file_set_size(to_rio(fh), size));
FORWARD(int, MPI_File_preallocate, (MPI_File fh, MPI_Offset size),
        rio_file_preallocate(to_rio(fh), size));
FORWARD(int, MPI_File_get_size, (MPI_File fh, MPI_Offset *size),
        rio_file_get_size(to_rio(fh), size));
FORWARD(int, MPI_File_get_group, (MPI_File fh, MPI_Group *group),
        rio_file_get_group(to_rio(fh), group));
FORWARD(int, MPI_File_get_amode, (MPI_File fh, int *amode),
        rio_file_get_amode(to_rio(fh), amode));
FORWARD(int, MPI_File_set_info, (MPI_File fh, MPI_Info info),
        rio_file_set_info(to_rio(fh), info));
FORWARD(int, MPI_File_get_info, (MPI_File fh, MPI_Info *info_used),
        rio_file_get_info(to_rio(fh), info_used));

/* ---- views ------------------------------------------------------------ */

FORWARD(int, MPI_File_set_view,
        (MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
         const char *datarep, MPI_Info info),
        rio_file_set_view(to_rio(fh), disp, etype, filetype, datarep, info));
FORWARD(int, MPI_File_get_view,
        (MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
         char *datarep),
        rio_file_get_view(to_rio(fh), disp, etype, filetype, datarep));

/* ---- explicit offsets ------------------------------------------------- */

FORWARD(int, MPI_File_read_at,
        (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
         MPI_Status *status),
        rio_file_read_at(to_rio(fh), offset, buf, count, datatype, status));
FORWARD(int, MPI_File_read_at_all,
        (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
         MPI_Status *status),
        rio_file_read_at_all(to_rio(fh), offset, buf, count, datatype, status));
FORWARD(int, MPI_File_write_at,
        (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
         MPI_Status *status),
        rio_file_write_at(to_rio(fh), offset, buf, count, datatype, status));
FORWARD(int, MPI_File_write_at_all,
        (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
         MPI_Status *status),
        rio_file_write_at_all(to_rio(fh), offset, buf, count, datatype, status));
FORWARD(int, MPI_File_iread_at,
        (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
         MPI_Request *request),
        rio_file_iread_at(to_rio(fh), offset, buf, count, datatype, request));
FORWARD(int, MPI_File_iwrite_at,
        (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
         MPI_Request *request),
        rio_file_iwrite_at(to_rio(fh), offset, buf, count, datatype, request));
FORWARD(int, MPI_File_iread_at_all,
        (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
         MPI_Request *request),
        rio_file_iread_at_all(to_rio(fh), offset, buf, count, datatype, request));
FORWARD(int, MPI_File_iwrite_at_all,
        (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
         MPI_Request *request),
        rio_file_iwrite_at_all(to_rio(fh), offset, buf, count, datatype, request));

/* ---- individual file pointer ------------------------------------------ */

FORWARD(int, MPI_File_read,
        (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status),
        rio_file_read(to_rio(fh), buf, count, datatype, status));
FORWARD(int, MPI_File_read_all,
        (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status),
        rio_file_read_all(to_rio(fh), buf, count, datatype, status));
FORWARD(int, MPI_File_write,
        (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status),
        rio_file_write(to_rio(fh), buf, count, datatype, status));
FORWARD(int, MPI_File_write_all,
        (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status),
        rio_file_write_all(to_rio(fh), buf, count, datatype, status));
FORWARD(int, MPI_File_iread,
        (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request),
        rio_file_iread(to_rio(fh), buf, count, datatype, request));
FORWARD(int, MPI_File_iwrite,
        (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request),
        rio_file_iwrite(to_rio(fh), buf, count, datatype, request));
FORWARD(int, MPI_File_iread_all,
        (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request),
        rio_file_iread_all(to_rio(fh), buf, count, datatype, request));
FORWARD(int, MPI_File_iwrite_all,
        (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request),
        rio_file_iwrite_all(to_rio(fh), buf, count, datatype, request));
FORWARD(int, MPI_File_seek, (MPI_File fh, MPI_Offset offset, int whence),
        rio_file_seek(to_rio(fh), offset, whence));
FORWARD(int, MPI_File_get_position, (MPI_File fh, MPI_Offset *offset),
        rio_file_get_position(to_rio(fh), offset));
FORWARD(int, MPI_File_get_byte_offset, (MPI_File fh, MPI_Offset offset, MPI_Offset *disp),
        rio_file_get_byte_offset(to_rio(fh), offset, disp));

/* ---- shared file pointer ---------------------------------------------- */

FORWARD(int, MPI_File_read_shared,
        (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status),
        rio_file_read_shared(to_rio(fh), buf, count, datatype, status));
FORWARD(int, MPI_File_write_shared,
        (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status),
        rio_file_write_shared(to_rio(fh), buf, count, datatype, status));
FORWARD(int, MPI_File_iread_shared,
        (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request),
        rio_file_iread_shared(to_rio(fh), buf, count, datatype, request));
FORWARD(int, MPI_File_iwrite_shared,
        (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request),
        rio_file_iwrite_shared(to_rio(fh), buf, count, datatype, request));
FORWARD(int, MPI_File_read_ordered,
        (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status),
        rio_file_read_ordered(to_rio(fh), buf, count, datatype, status));
FORWARD(int, MPI_File_write_ordered,
        (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status),
        rio_file_write_ordered(to_rio(fh), buf, count, datatype, status));
FORWARD(int, MPI_File_seek_shared, (MPI_File fh, MPI_Offset offset, int whence),
        rio_file_seek_shared(to_rio(fh), offset, whence));
FORWARD(int, MPI_File_get_position_shared, (MPI_File fh, MPI_Offset *offset),
        rio_file_get_position_shared(to_rio(fh), offset));

/* ---- split collective ------------------------------------------------- */

FORWARD(int, MPI_File_read_at_all_begin,
        (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype),
        rio_file_read_at_all_begin(to_rio(fh), offset, buf, count, datatype));
FORWARD(int, MPI_File_read_at_all_end, (MPI_File fh, void *buf, MPI_Status *status),
        rio_file_read_at_all_end(to_rio(fh), buf, status));
FORWARD(int, MPI_File_write_at_all_begin,
        (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype),
        rio_file_write_at_all_begin(to_rio(fh), offset, buf, count, datatype));
FORWARD(int, MPI_File_write_at_all_end, (MPI_File fh, const void *buf, MPI_Status *status),
        rio_file_write_at_all_end(to_rio(fh), buf, status));
FORWARD(int, MPI_File_read_all_begin,
        (MPI_File fh, void *buf, int count, MPI_Datatype datatype),
        rio_file_read_all_begin(to_rio(fh), buf, count, datatype));
FORWARD(int, MPI_File_read_all_end, (MPI_File fh, void *buf, MPI_Status *status),
        rio_file_read_all_end(to_rio(fh), buf, status));
FORWARD(int, MPI_File_write_all_begin,
        (MPI_File fh, const void *buf, int count, MPI_Datatype datatype),
        rio_file_write_all_begin(to_rio(fh), buf, count, datatype));
FORWARD(int, MPI_File_write_all_end, (MPI_File fh, const void *buf, MPI_Status *status),
        rio_file_write_all_end(to_rio(fh), buf, status));
FORWARD(int, MPI_File_read_ordered_begin,
        (MPI_File fh, void *buf, int count, MPI_Datatype datatype),
        rio_file_read_ordered_begin(to_rio(fh), buf, count, datatype));
FORWARD(int, MPI_File_read_ordered_end, (MPI_File fh, void *buf, MPI_Status *status),
        rio_file_read_ordered_end(to_rio(fh), buf, status));
FORWARD(int, MPI_File_write_ordered_begin,
        (MPI_File fh, const void *buf, int count, MPI_Datatype datatype),
        rio_file_write_ordered_begin(to_rio(fh), buf, count, datatype));
FORWARD(int, MPI_File_write_ordered_end, (MPI_File fh, const void *buf, MPI_Status *status),
        rio_file_write_ordered_end(to_rio(fh), buf, status));

/* ---- misc ------------------------------------------------------------- */

FORWARD(int, MPI_File_get_type_extent, (MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent),
        rio_file_get_type_extent(to_rio(fh), datatype, extent));
FORWARD(int, MPI_File_set_atomicity, (MPI_File fh, int flag),
        rio_file_set_atomicity(to_rio(fh), flag));
FORWARD(int, MPI_File_get_atomicity, (MPI_File fh, int *flag),
        rio_file_get_atomicity(to_rio(fh), flag));
FORWARD(int, MPI_File_sync, (MPI_File fh), rio_file_sync(to_rio(fh)));

/* ---- error handling ----------------------------------------------------
 * MPI_FILE_NULL becomes RIO_FILE_NULL: the default file error handler.    */

FORWARD(int, MPI_File_create_errhandler,
        (MPI_File_errhandler_function *function, MPI_Errhandler *errhandler),
        rio_file_create_errhandler(function, errhandler));
FORWARD(int, MPI_File_set_errhandler, (MPI_File file, MPI_Errhandler errhandler),
        rio_file_set_errhandler(to_rio(file), errhandler));
FORWARD(int, MPI_File_get_errhandler, (MPI_File file, MPI_Errhandler *errhandler),
        rio_file_get_errhandler(to_rio(file), errhandler));
FORWARD(int, MPI_File_call_errhandler, (MPI_File fh, int errorcode),
        rio_file_call_errhandler(to_rio(fh), errorcode));

/* ---- data representations and Fortran handles ------------------------- */

FORWARD(int, MPI_Register_datarep,
        (const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
         MPI_Datarep_conversion_function *write_conversion_fn,
         MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state),
        rio_register_datarep(datarep, read_conversion_fn, write_conversion_fn,
                             dtype_file_extent_fn, extra_state));
FORWARD(MPI_Fint, MPI_File_c2f, (MPI_File file), rio_file_c2f(to_rio(file)));
FORWARD(MPI_File, MPI_File_f2c, (MPI_Fint file), to_mpi(rio_file_f2c(file)));

/* ---- large-count variants (MPI-4) ------------------------------------- */
#if MPI_VERSION >= 4

FORWARD(int, MPI_File_read_at_c,
        (MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype,
         MPI_Status *status),
        rio_file_read_at_c(to_rio(fh), offset, buf, count, datatype, status));
FORWARD(int, MPI_File_read_at_all_c,
        (MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype,
         MPI_Status *status),
        rio_file_read_at_all_c(to_rio(fh), offset, buf, count, datatype, status));
FORWARD(int, MPI_File_write_at_c,
        (MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
         MPI_Datatype datatype, MPI_Status *status),
        rio_file_write_at_c(to_rio(fh), offset, buf, count, datatype, status));
FORWARD(int, MPI_File_write_at_all_c,
        (MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
         MPI_Datatype datatype, MPI_Status *status),
        rio_file_write_at_all_c(to_rio(fh), offset, buf, count, datatype, status));
FORWARD(int, MPI_File_iread_at_c,
        (MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype,
         MPI_Request *request),
        rio_file_iread_at_c(to_rio(fh), offset, buf, count, datatype, request));
FORWARD(int, MPI_File_iwrite_at_c,
        (MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
         MPI_Datatype datatype, MPI_Request *request),
        rio_file_iwrite_at_c(to_rio(fh), offset, buf, count, datatype, request));
FORWARD(int, MPI_File_iread_at_all_c,
        (MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype,
         MPI_Request *request),
        rio_file_iread_at_all_c(to_rio(fh), offset, buf, count, datatype, request));
FORWARD(int, MPI_File_iwrite_at_all_c,
        (MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
         MPI_Datatype datatype, MPI_Request *request),
        rio_file_iwrite_at_all_c(to_rio(fh), offset, buf, count, datatype, request));

FORWARD(int, MPI_File_read_c,
        (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status),
        rio_file_read_c(to_rio(fh), buf, count, datatype, status));
FORWARD(int, MPI_File_read_all_c,
        (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status),
        rio_file_read_all_c(to_rio(fh), buf, count, datatype, status));
FORWARD(int, MPI_File_write_c,
        (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
         MPI_Status *status),
        rio_file_write_c(to_rio(fh), buf, count, datatype, status));
FORWARD(int, MPI_File_write_all_c,
        (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
         MPI_Status *status),
        rio_file_write_all_c(to_rio(fh), buf, count, datatype, status));
FORWARD(int, MPI_File_iread_c,
        (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request),
        rio_file_iread_c(to_rio(fh), buf, count, datatype, request));
FORWARD(int, MPI_File_iwrite_c,
        (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
         MPI_Request *request),
        rio_file_iwrite_c(to_rio(fh), buf, count, datatype, request));
FORWARD(int, MPI_File_iread_all_c,
        (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request),
        rio_file_iread_all_c(to_rio(fh), buf, count, datatype, request));
FORWARD(int, MPI_File_iwrite_all_c,
        (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
         MPI_Request *request),
        rio_file_iwrite_all_c(to_rio(fh), buf, count, datatype, request));

FORWARD(int, MPI_File_read_shared_c,
        (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status),
        rio_file_read_shared_c(to_rio(fh), buf, count, datatype, status));
FORWARD(int, MPI_File_write_shared_c,
        (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
         MPI_Status *status),
        rio_file_write_shared_c(to_rio(fh), buf, count, datatype, status));
FORWARD(int, MPI_File_iread_shared_c,
        (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request),
        rio_file_iread_shared_c(to_rio(fh), buf, count, datatype, request));
FORWARD(int, MPI_File_iwrite_shared_c,
        (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
         MPI_Request *request),
        rio_file_iwrite_shared_c(to_rio(fh), buf, count, datatype, request));
FORWARD(int, MPI_File_read_ordered_c,
        (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status),
        rio_file_read_ordered_c(to_rio(fh), buf, count, datatype, status));
FORWARD(int, MPI_File_write_ordered_c,
        (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
         MPI_Status *status),
        rio_file_write_ordered_c(to_rio(fh), buf, count, datatype, status));

FORWARD(int, MPI_File_read_at_all_begin_c,
        (MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype),
        rio_file_read_at_all_begin_c(to_rio(fh), offset, buf, count, datatype));
FORWARD(int, MPI_File_write_at_all_begin_c,
        (MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
         MPI_Datatype datatype),
        rio_file_write_at_all_begin_c(to_rio(fh), offset, buf, count, datatype));
FORWARD(int, MPI_File_read_all_begin_c,
        (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype),
        rio_file_read_all_begin_c(to_rio(fh), buf, count, datatype));
FORWARD(int, MPI_File_write_all_begin_c,
        (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype),
        rio_file_write_all_begin_c(to_rio(fh), buf, count, datatype));
FORWARD(int, MPI_File_read_ordered_begin_c,
        (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype),
        rio_file_read_ordered_begin_c(to_rio(fh), buf, count, datatype));
FORWARD(int, MPI_File_write_ordered_begin_c,
        (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype),
        rio_file_write_ordered_begin_c(to_rio(fh), buf, count, datatype));

FORWARD(int, MPI_File_get_type_extent_c,
        (MPI_File fh, MPI_Datatype datatype, MPI_Count *extent),
        rio_file_get_type_extent_c(to_rio(fh), datatype, extent));
FORWARD(int, MPI_Register_datarep_c,
        (const char *datarep, MPI_Datarep_conversion_function_c *read_conversion_fn,
         MPI_Datarep_conversion_function_c *write_conversion_fn,
         MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state),
        rio_register_datarep_c(datarep, read_conversion_fn, write_conversion_fn,
                               dtype_file_extent_fn, extra_state));

#endif /* MPI_VERSION >= 4 */
