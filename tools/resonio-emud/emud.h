/*
 * emud.h — private declarations of resonio-emud, the emulated striped
 * storage: the command line (emud.c), one target's server (serve.c) and
 * the service-time model (src/emu/model.c, shared with the simgrid:
 * driver).
 *
 * A service directory D holds emud.conf ("targets N" and the options of
 * the start), and per target i: the socket t<i>.sock, the pid file
 * t<i>.pid, the log t<i>.log, the data directory t<i>/ (one object file
 * per logical file, <fid>.obj; target 0 also meta.tab), and, written at
 * shutdown, t<i>.csv (one line per disk access: arrival time, client, op,
 * file id, object offset, length) and t<i>.stats.csv (the counters).
 */
#ifndef RIO_EMUD_H
#define RIO_EMUD_H

#include <stdint.h>

#include "emu/model.h"
#include "emu/proto.h"

/** Options of a target: its disk's model (src/emu/model.h) and the
 *  server's own (the defaults are set by emud_cfg_defaults). */
struct emud_cfg {
    struct rio_emu_disk_cfg disk;
    double time_scale;    /* modelled times are waited for times this */
    int elevator;         /* pending requests the scheduler chooses among (1: FIFO) */
    double stall_s;       /* a connection stopped this long inside a message is closed */
    long log_cap;         /* accesses kept in the arrival log */
};

void emud_cfg_defaults(struct emud_cfg *c);

/** Run target `index` of the service in dir in the foreground until
 *  SIGTERM/SIGINT; returns the exit status. */
int emud_serve(const char *dir, int index, int ntargets, const struct emud_cfg *cfg);

#endif /* RIO_EMUD_H */
