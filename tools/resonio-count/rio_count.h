/*
 * rio_count.h — what the counting layer (librio_count.so) hands a program
 * that asks for its counts.
 *
 * The layer counts the messages every rank sends while a window is open,
 * as the MPI library's point-to-point layer sees them, sorted into three
 * classes, and the storage requests the rank makes through the C
 * library's positioned reads and writes.  A program opens and closes
 * windows, and reads the counts, through MPI_Pcontrol, the standard's hook
 * for profiling layers:
 *
 *     MPI_Pcontrol(1)                    open a window
 *     MPI_Pcontrol(0)                    close it
 *     MPI_Pcontrol(2, struct rio_count *)  copy the counts since the last
 *                                        read into the struct, and zero them
 *
 * Without the layer MPI_Pcontrol does nothing and the struct keeps
 * magic == 0: the program knows there are no counts.
 */
#ifndef RIO_COUNT_H
#define RIO_COUNT_H

#define RIO_COUNT_MAGIC 0x52434e54 /* "RCNT" */

enum rio_count_class {
    RIO_COUNT_COLL, /* inside a collective operation (negative tags): the
                       MPI library's own messages, and OMPIO's index gathers */
    RIO_COUNT_META, /* point-to-point, no file data: resonio's coordinates,
                       tokens, turns and empty messages */
    RIO_COUNT_DATA, /* point-to-point with file data */
    RIO_COUNT_NCLASS
};

struct rio_count {
    int magic;      /* RIO_COUNT_MAGIC when the layer filled the struct */
    int seen_pml;   /* 1: the MPI library's own messages were counted too */
    long long msgs[RIO_COUNT_NCLASS];
    long long bytes[RIO_COUNT_NCLASS];
    /* storage requests: the process's positioned reads and writes
     * (pread, pwrite, preadv, pwritev and their 64-bit names) and the
     * bytes they moved */
    long long io_reqs, io_bytes;
};

#endif
