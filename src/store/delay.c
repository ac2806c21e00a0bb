/*
 * delay.c — a driver that wraps another and makes every storage request
 * take longer, so that tests know which collective strategy is faster
 * (the selector's tests) without depending on this machine's disk.
 * "delay:NAME" wraps the posix driver, "delay:emu:NAME" the emu driver
 * (wrap.c); only the data transfers below are changed, the rest is
 * forwarded.
 *
 * The spec is the hint resonio_delay, else the environment variable
 * RESONIO_DELAY, read again at every request so that MPI_File_set_info can
 * change the storage's speed while a program runs.  A comma-separated list
 * of key=value:
 *
 *   req=US        microseconds added to every request
 *   mib=US        microseconds added per MiB moved
 *   rank=R        the MPI_COMM_WORLD rank that gets the two below as well
 *   rank_req=US   extra microseconds per request on rank R
 *   rank_mib=US   extra microseconds per MiB on rank R
 *   jitter=PCT    each delay varies by up to PCT percent either way
 *                 (a fixed pseudo-random sequence per process)
 *
 * A list or datatype request counts as one request; a transfer that comes
 * back short (the posix driver writes 1 MiB a call) is charged for what it
 * moved, its caller asking again for the rest.  Data moves through
 * the inner driver unchanged.
 */
#include "store.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct dspec {
    double req, mib, rank_req, rank_mib, jitter;
    int rank;
};

/* resonio_delay: the spec, else RESONIO_DELAY; read at each request, so
 * set_info changes it for the open file. */
struct delay_settings {
    char *spec; /* owned */
};
static const struct rio_setting delay_keys[] = {
    {"resonio_delay", RIO_SET_STR, offsetof(struct delay_settings, spec), NULL, 0,
     "how the delay: driver slows requests (else RESONIO_DELAY)", NULL, NULL},
};
static const struct rio_settings_owner delay_owner =
    RIO_SETTINGS_OWNER("delay", struct delay_settings, delay_keys);

/* Several threads may make requests on one file at once (independent
 * calls under MPI_THREAD_MULTIPLE, the I/O threads of nonblocking calls),
 * so the parsed spec and the jitter sequence are taken under lock; the
 * sleep is not.  The I/O threads must not call MPI: the MPI_COMM_WORLD
 * rank that rank= compares with is read at open. */
struct xfile {
    struct rio_store_wrap w; /* first: wrap.c's view of this state */
    pthread_mutex_t lock;
    char spec_text[256];   /* the spec dspec was parsed from */
    struct dspec spec;
    unsigned long long rnd;
    int world_rank;        /* -1 when MPI was not initialized at open */
};

static struct xfile *xf_of(struct rio_store *st)
{
    return st->priv;
}

static void parse(const char *text, struct dspec *d)
{
    *d = (struct dspec){0, 0, 0, 0, 0, -1};
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text ? text : "");
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            continue;
        *eq = '\0';
        double v = strtod(eq + 1, NULL);
        if (v < 0)
            v = 0;
        if (!strcmp(tok, "req"))
            d->req = v;
        else if (!strcmp(tok, "mib"))
            d->mib = v;
        else if (!strcmp(tok, "rank"))
            d->rank = (int)v;
        else if (!strcmp(tok, "rank_req"))
            d->rank_req = v;
        else if (!strcmp(tok, "rank_mib"))
            d->rank_mib = v;
        else if (!strcmp(tok, "jitter"))
            d->jitter = v > 100 ? 100 : v;
    }
}

/* Sleep as the current spec says for one request of len bytes. */
static void pause_for(struct rio_store *st, MPI_Offset len)
{
    struct xfile *xf = xf_of(st);
    const struct delay_settings *s = rio__settings_get(st->hints, &delay_owner);
    const char *text = s->spec ? s->spec : getenv("RESONIO_DELAY");
    if (!text)
        text = "";
    pthread_mutex_lock(&xf->lock);
    if (strcmp(text, xf->spec_text)) {
        snprintf(xf->spec_text, sizeof xf->spec_text, "%s", text);
        parse(text, &xf->spec);
    }
    const struct dspec *d = &xf->spec;
    double mib = (double)len / (1 << 20), us = d->req + d->mib * mib;
    if (d->rank >= 0 && xf->world_rank == d->rank)
        us += d->rank_req + d->rank_mib * mib;
    if (d->jitter > 0) {
        xf->rnd = xf->rnd * 6364136223846793005ULL + 1442695040888963407ULL;
        double u = (double)(xf->rnd >> 11) / (double)(1ULL << 53); /* [0, 1) */
        us *= 1.0 + d->jitter / 100.0 * (2.0 * u - 1.0);
    }
    pthread_mutex_unlock(&xf->lock);
    if (us < 1)
        return;
    struct timespec ts = {(time_t)(us / 1e6), (long)((us - (double)(time_t)(us / 1e6) * 1e6) * 1e3)};
    while (nanosleep(&ts, &ts))
        ;
}

static int x_open(struct rio_store *st, const char *path, int oflags, mode_t perm,
                  const struct rio_hints *hints)
{
    struct xfile *xf = rio__calloc(1, sizeof *xf);
    if (!xf)
        return RIO_E_NOMEM;
    xf->rnd = 0x9e3779b97f4a7c15ULL;
    parse("", &xf->spec);
    pthread_mutex_init(&xf->lock, NULL);
    int init = 0;
    xf->world_rank = -1;
    MPI_Initialized(&init);
    if (init)
        MPI_Comm_rank(MPI_COMM_WORLD, &xf->world_rank);
    int rc = rio__store_wrap_open(st, &xf->w, &rio__store_delay, NULL, path, oflags, perm, hints);
    if (rc) {
        pthread_mutex_destroy(&xf->lock);
        free(xf);
    }
    return rc;
}

#define IN (&xf_of(st)->w.inner)

/* A transfer that may be short (the posix driver writes 1 MiB a call) is
 * charged for the bytes it moved: the caller asks again for the rest. */
static ssize_t charged(struct rio_store *st, ssize_t moved)
{
    pause_for(st, moved > 0 ? (MPI_Offset)moved : 0);
    return moved;
}

static ssize_t x_pread(struct rio_store *st, void *buf, size_t len, MPI_Offset off)
{
    return charged(st, IN->ops->pread(IN, buf, len, off));
}
static ssize_t x_pwrite(struct rio_store *st, const void *buf, size_t len, MPI_Offset off)
{
    return charged(st, IN->ops->pwrite(IN, buf, len, off));
}
static MPI_Offset iov_len(const struct iovec *iov, int n)
{
    MPI_Offset t = 0;
    for (int i = 0; i < n; i++)
        t += (MPI_Offset)iov[i].iov_len;
    return t;
}
static ssize_t x_preadv(struct rio_store *st, const struct iovec *iov, int n, MPI_Offset off)
{
    return charged(st, IN->ops->preadv(IN, iov, n, off));
}
static ssize_t x_pwritev(struct rio_store *st, const struct iovec *iov, int n, MPI_Offset off)
{
    return charged(st, IN->ops->pwritev(IN, iov, n, off));
}
static int x_read_list(struct rio_store *st, const struct rio_region *file,
                       const struct iovec *mem, int n, MPI_Offset *done)
{
    pause_for(st, iov_len(mem, n));
    return IN->ops->read_list(IN, file, mem, n, done);
}
static int x_write_list(struct rio_store *st, const struct rio_region *file,
                        const struct iovec *mem, int n)
{
    pause_for(st, iov_len(mem, n));
    return IN->ops->write_list(IN, file, mem, n);
}
static int x_write_view(struct rio_store *st, const struct rio_dtype *ft, MPI_Offset disp,
                        MPI_Offset pos, const void *buf, MPI_Offset len)
{
    pause_for(st, len);
    return IN->ops->write_view(IN, ft, disp, pos, buf, len);
}
static int x_read_view(struct rio_store *st, const struct rio_dtype *ft, MPI_Offset disp,
                       MPI_Offset pos, void *buf, MPI_Offset len, MPI_Offset *done)
{
    pause_for(st, len);
    return IN->ops->read_view(IN, ft, disp, pos, buf, len, done);
}

/* Everything not named here is forwarded unchanged (wrap.c). */
const struct rio_store_ops rio__store_delay = {
    .name = "delay",
    .version = RIO_STORE_OPS_VERSION,
    .wraps = 1,
    .open = x_open,
    .pread = x_pread,
    .pwrite = x_pwrite,
    .preadv = x_preadv,
    .pwritev = x_pwritev,
    .read_list = x_read_list,
    .write_list = x_write_list,
    .write_view = x_write_view,
    .read_view = x_read_view,
    .settings = &delay_owner,
};
