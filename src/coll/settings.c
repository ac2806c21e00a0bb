/*
 * settings.c — the collective engine's hints: ROMIO's collective
 * buffering keys, the keys ROMIO's Lustre driver reads (CO, big_req_size,
 * ds_in_coll, same_io_size, contiguous_data) and resonio's own.  The file
 * layer parses them into a struct rio_coll_settings per file; the engine
 * reads it with rio__coll_settings (coll_int.h).
 */
#include "coll_int.h"
#include "../common/cblist.h"

/* cb_config_list is checked when set, so a malformed list is ignored
 * whole (the default stays) instead of failing each call. */
static int check_config_list(const char *val)
{
    int names_host;
    return rio__cblist_check(val, &names_host);
}

#define F(m) offsetof(struct rio_coll_settings, m)
static const struct rio_setting coll_keys[] = {
    {"cb_buffer_size", RIO_SET_SIZE, F(cb_buffer_size), "16m", 0,
     "bytes an aggregator moves per round", NULL, NULL},
    {"cb_nodes", RIO_SET_INT, F(cb_nodes), NULL, 0,
     "number of aggregators (unset: one per node)", NULL, NULL},
    {"romio_cb_read", RIO_SET_TRI, F(romio_cb_read), "automatic", 0,
     "collective buffering of reads (enable/disable/automatic)", NULL, NULL},
    {"romio_cb_write", RIO_SET_TRI, F(romio_cb_write), "automatic", 0,
     "collective buffering of writes (enable/disable/automatic)", NULL, NULL},
    {"cb_config_list", RIO_SET_STR, F(cb_config_list), NULL, 0,
     "aggregators by processor name: name[:N],...", NULL, check_config_list},
    {"resonio_strategy", RIO_SET_STR, F(strategy), NULL, 0,
     "collective strategy, or auto (unset: auto)", NULL, NULL},
    {"resonio_ranks_per_node", RIO_SET_INT, F(ranks_per_node), NULL, 0,
     "treat each run of N ranks as one node (unset: real nodes)", NULL, NULL},
    {"CO", RIO_SET_INT, F(co), "1", 0, "stripe: aggregators per storage target", NULL, NULL},
    {"big_req_size", RIO_SET_SIZE, F(big_req_size), NULL, 0,
     "stripe: a rank's request this large goes to storage itself (unset: never)", NULL, NULL},
    {"ds_in_coll", RIO_SET_TRI, F(ds_in_coll), "disable", RIO_SET_READS_FILE,
     "stripe: read-modify-write of rounds with holes", NULL, NULL},
    {"same_io_size", RIO_SET_BOOL, F(same_io_size), "false", 0,
     "the program promises every rank's request has the same size", NULL, NULL},
    {"contiguous_data", RIO_SET_BOOL, F(contiguous_data), "false", 0,
     "the program promises every rank's request is one file region", NULL, NULL},
    {"resonio_shm", RIO_SET_TRI, F(shm), "automatic", 0,
     "move node-local data through an MPI-3 shared-memory window", NULL, NULL},
    {"resonio_bytes_per_agg", RIO_SET_SIZE, F(bytes_per_agg), "32m", 0,
     "sized: one aggregator per this many bytes of the call", NULL, NULL},
    {"resonio_ranks_per_agg", RIO_SET_INT, F(ranks_per_agg), "8", 0,
     "sized: on a call whose ranks' bytes follow rank order, at least one aggregator per "
     "this many ranks (0: no such bound)", NULL, NULL},
};
#undef F

const struct rio_settings_owner rio__coll_settings_owner =
    RIO_SETTINGS_OWNER("coll", struct rio_coll_settings, coll_keys);
