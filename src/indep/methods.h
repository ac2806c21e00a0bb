/*
 * methods.h — the independent access methods, one row each.
 *
 * The single list of methods: indep.h makes the enum from it (after
 * RIO_INDEP_AUTO, the chooser), indep_int.h declares each method's entry
 * point rio__indep_NAME (defined in the method's own file), and indep.c
 * builds the table of names and entry points that the hint parser,
 * MPI_File_get_info, the public enumeration (rio_indep_method_name), the
 * per-method counters of struct rio_stats and the dispatch read; the
 * tests' CMake reads the names from here too.  A new method is a new file
 * in this folder plus one row here: it can then be forced by hint and is
 * counted; the chooser (rio__indep_choose) picks it only once a rule of
 * its own says when.  The order of the rows is the order of the enum, of
 * the public enumeration and of the counters.  No include guard: each
 * includer defines RIO_INDEP_METHOD(ENUM, name) for its own expansion.
 */
RIO_INDEP_METHOD(CONTIG, contig) /* one call; the file side contiguous */
RIO_INDEP_METHOD(POSIX, posix)   /* one call per file region */
RIO_INDEP_METHOD(SIEVE, sieve)   /* data sieving (sieve.c) */
RIO_INDEP_METHOD(LIST, list)     /* list I/O (list.c) */
RIO_INDEP_METHOD(DTYPE, dtype)   /* datatype I/O (list.c) */
RIO_INDEP_METHOD(VIEW, view)     /* one datatype request to storage (view.c) */
