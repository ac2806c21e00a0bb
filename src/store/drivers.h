/*
 * drivers.h — the storage drivers by file-name prefix, one row each.
 *
 * The single list of prefixes: store.c makes its prefix table from it and
 * store.h declares each driver's ops table, rio__store_NAME (defined in
 * the driver's own file, NAME.c), so a new driver is a new file in this
 * folder plus one row here; its hints come with it through its ops
 * table's .settings.  RIO_STORE_PREFIX(prefix, NAME) serves the prefix
 * with driver NAME (several prefixes may name one driver);
 * RIO_STORE_ABSENT(prefix) names a ROMIO driver this build does not have,
 * whose files are refused rather than taken for plain paths.  No include
 * guard: each includer defines both macros for its own expansion.
 */
RIO_STORE_PREFIX("posix:", posix)
RIO_STORE_PREFIX("ufs:", posix)    /* ROMIO's names, served by posix */
RIO_STORE_PREFIX("nfs:", posix)
RIO_STORE_PREFIX("lustre:", posix)
RIO_STORE_PREFIX("fault:", fault)  /* wrappers (wrap.c) */
RIO_STORE_PREFIX("delay:", delay)
RIO_STORE_PREFIX("emu:", emu)      /* the client of resonio-emud */
#ifdef RIO_HAVE_CEPHFS                /* CMake found libcephfs's header */
RIO_STORE_PREFIX("cephfs:", cephfs) /* CephFS through libcephfs, in user space */
#else
RIO_STORE_ABSENT("cephfs:")
#endif
#ifdef RIO_HAVE_RADOS                 /* CMake found librados's header */
RIO_STORE_PREFIX("rados:", rados)   /* RADOS objects of a pool, striped */
#else
RIO_STORE_ABSENT("rados:")
#endif
#ifdef RIO_HAVE_SIMGRID               /* the SMPI build (cmake/smpi.cmake) */
RIO_STORE_PREFIX("simgrid:", simgrid) /* striped storage on SimGrid's simulated hosts */
#else
RIO_STORE_ABSENT("simgrid:")
#endif
RIO_STORE_ABSENT("pvfs2:")
RIO_STORE_ABSENT("gpfs:")
RIO_STORE_ABSENT("daos:")
RIO_STORE_ABSENT("testfs:")
