/*
 * cblist.h — the cb_config_list hint, as ROMIO reads it.
 *
 * Comma-separated entries name[:N]; name is a processor name (MPI_Get_processor_name) or '*' for any host;
 * N is the most aggregators taken on a matching host, '*' all of its
 * processes, 1 when absent.  Entries apply in order and a host belongs to
 * the first entry that matches it, so "ion7:2,*:1" gives ion7 two
 * aggregators and every other host one.  resonio's hosts are its nodes:
 * the shared-memory nodes, or the virtual nodes of resonio_ranks_per_node,
 * whose name is that of their lowest rank; several virtual nodes on one
 * machine therefore share a name and an entry naming the machine matches
 * each of them.
 *
 * Pure string work, shared by the layer that validates hints (a bad list
 * is ignored whole) and the collective engine that takes aggregators from
 * a list.
 */
#ifndef RIO_CBLIST_H
#define RIO_CBLIST_H

#include <stddef.h>

/** One entry of a list. */
struct rio_cblist_entry {
    const char *name; /* NULL: '*' */
    size_t len;
    int max;          /* -1: '*' */
};

/** The entry at *p: 1 and *p past it (and its comma), 0 at the end, -1
 *  when malformed: an empty entry or name, '*' followed by other
 *  characters, a count that is not '*' or a decimal number.  e->name
 *  points into the list.  Local. */
int rio__cblist_next(const char **p, struct rio_cblist_entry *e);
/** Is list a well-formed cb_config_list?  Returns 0 if so, with
 *  *names_host 1 when some entry names a host, or -1.  Local. */
int rio__cblist_check(const char *list, int *names_host);

#endif /* RIO_CBLIST_H */
