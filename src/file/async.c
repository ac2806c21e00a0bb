/*
 * async.c — the I/O threads that run nonblocking independent calls in the
 * background, and the generalized requests that report them.
 *
 * rw.c checks a nonblocking independent call, fixes its position and
 * captures what it needs at issue time (everything that calls MPI or reads
 * the file's mutable state), then hands a job to rio__async_submit: a run
 * function that moves the data without calling MPI, and a release function
 * for what it captured.  The job goes on one FIFO queue served by a small
 * pool of pthreads of resonio's own (RESONIO_IO_THREADS, default 2),
 * started at the first submission and joined at MPI_Finalize (a
 * MPI_COMM_SELF attribute) or at library unload.
 *
 * Completion depends on what the MPI library allows, decided once at run
 * time (rio__async_mode):
 *
 *   thread  MPI_THREAD_MULTIPLE was provided: the I/O thread calls
 *           MPI_Grequest_complete itself.
 *   poll    otherwise, where the library has extended generalized
 *           requests (MPICH's MPIX_Grequest_start, found at build time:
 *           RIO_HAVE_MPIX_GREQUEST): the I/O thread only marks the job
 *           done; the poll function, which MPICH calls inside MPI_Test and
 *           MPI_Wait, completes the request.  The I/O threads never call
 *           MPI.
 *   progress  Open MPI without MULTIPLE: it has no extended generalized
 *           requests, but its progress engine, which MPI_Test, MPI_Wait and
 *           every other call that waits run in the calling thread, takes
 *           functions of its users (opal_progress_register, exported by
 *           libopen-pal; Open MPI's own MPI-IO completes its nonblocking
 *           requests the same way).  The I/O thread only puts the job on
 *           the done list; the progress function, in a thread that is
 *           inside MPI anyway, completes the requests on it.  The two
 *           functions are looked up at run time (dlsym), so nothing links
 *           against Open MPI's internals.
 *   none    none of these (an MPI library without either hook, or the
 *           progress functions not found), RESONIO_IO_THREADS is 0, or
 *           the SMPI build (RIO_SMPI: SimGrid's simulated ranks):
 *           rw.c does the work at issue time and returns a request
 *           already complete, as before.
 *
 * Lifetime.  A job holds two references: the pool's (dropped when it has
 * run and, in thread mode, been completed) and the request's (dropped by
 * the free function MPI calls when the user's request is freed: at the
 * wait or test that completes it, or at MPI_Request_free, which MPICH
 * calls at once and Open MPI after completion).  While the request lives,
 * the job sits on its file's list; that list is what "requests
 * outstanding" means to rio__async_pending (close, set_view).  In poll
 * mode a request freed early is an orphan: MPICH will never poll it, yet
 * its request object lives until MPI_Grequest_complete, so the job keeps
 * the request's reference and, once it has run, waits on the done list
 * until a thread that may call MPI completes it (the next submission, a
 * poll or wait hook, a close, MPI_Finalize: complete_orphans).  Whether
 * jobs still run is counted apart (jobs_running, writes_running), since a
 * request freed early leaves the list while its job runs on.  Close waits
 * for the file's jobs to run (rio__async_drain) and then detaches those the
 * user never completed, so nothing runs on a freed handle and the free
 * function of a later wait touches only the job.
 *
 * Cancel: a job still queued leaves the queue and is settled at once,
 * without waiting for an I/O thread to reach it: it moves no bytes, and
 * its request completes as any job's does in that mode, its status saying
 * cancelled.  Below MULTIPLE the cancel function (which MPI calls inside
 * MPI_Cancel) settles it, and the next poll or progress completes it; in
 * thread mode a short-lived thread of its own settles and completes it,
 * since MPICH holds its lock while the cancel function runs.  A job
 * already running completes normally.
 *
 * Errors of a job are kept as resonio's internal code and detail; they
 * become an MPI error code (rio__err_to_mpi, which calls MPI) where MPI
 * may be called: on the I/O thread in thread mode, in the poll function in
 * poll mode.  The query function puts it in the status's MPI_ERROR and
 * returns it, so MPI_Wait returns it; the file's error handler is not
 * called.
 *
 * Collective calls (thread mode only) go to their file's lane instead: a
 * thread of the file's own and a duplicate of its communicator, made by
 * the file's first background collective call (collective, agreed) and
 * ended at close.  The lane runs its jobs one at a time in issue order,
 * calling MPI (the engine, the agreement) on its communicator; every rank
 * issues a file's collective calls in the same order, so the lanes meet.
 * A lane's job is never cancelled (the other ranks' jobs wait for it).  A
 * split collective's job has no request: its end collects it
 * (rio__async_wait_job).  Below MULTIPLE (poll and progress modes) the
 * lane calls no MPI: a collective call runs its engine at issue and
 * leaves the lane only its storage transfers (capture.c); the ranks'
 * agreement on the outcome is then made by whichever thread that may call
 * MPI drives the lane (lane_agree).
 *
 * One mutex (lock) guards the queue, the lanes' queues, every job's state
 * and every file's list; done_cv is broadcast whenever a job settles.
 * MPI is never called with the lock held.
 */
#include "file_int.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_THREADS 16

enum state { QUEUED, RUNNING, DONE, SETTLED };

struct rio_job {
    int (*run)(void *arg, MPI_Offset *done);
    int (*run_coll)(void *arg, MPI_Comm comm, MPI_Offset *done); /* a lane's job */
    struct rio_lane *lane;    /* the lane it runs on, for a collective job */
    void (*release)(void *arg);
    void *arg;
    rio_file *fh;             /* NULL once detached at close */
    const char *op;           /* static storage */
    char *filename;           /* a copy, for the error message */
    int write;
    enum state state;
    int cancelled;
    int completed;            /* MPI_Grequest_complete called or being called */
    int orphan;               /* poll mode: the request was freed before completion */
    int behind;               /* a collective call's kept transfers: settled by the lane's
                                 agreement once made (lane_agree) */
    struct rio_job *anext;    /* behind: the lane's jobs awaiting agreement */
    int refs;                 /* the pool's and the request's */
    int err;                  /* internal code of the job */
    int code;                 /* its MPI code, made before completion */
    char detail[RIO_ERR_DETAIL_MAX];
    MPI_Offset done;          /* bytes moved */
    double t_issue;
    MPI_Request req;
    struct rio_job *qnext;             /* the queue; then the done list (progress) */
    struct rio_job *fnext, **fprev;    /* the file's list */
};

/* A thread that serves jobs (an I/O thread, a lane's), as its wakers see
 * it (wake, below).  Fields under lock. */
struct server {
    pthread_t thread;
    cpu_set_t mask;  /* its own affinity, read when it started */
    int spread;      /* that mask holds more than one processor */
    int waiting;     /* in serve's wait, not yet called by a waker (wake) */
    pthread_cond_t cv; /* an I/O thread's wait (a lane's thread waits on the lane's) */
    int near;        /* a waker set its affinity to the waker's processor */
    int far;         /* an I/O thread called without that, counted in far_coming */
    pid_t waker;     /* that thread */
    double woken;    /* when it last did */
};

/* A file's lane: its collective jobs, run one at a time in issue order by
 * a thread of the file's own, with MPI calls on a duplicate of the file's
 * communicator (the caller's collective calls on fh->comm cannot meet
 * them).  Made by the first background collective call, ended at close. */
struct rio_lane {
    pthread_t thread;
    struct server srv;        /* its thread's placement (serve's) */
    pthread_cond_t cv;        /* work for the lane, or its end */
    struct rio_job *head, **tail;
    int unsettled;            /* jobs queued or running (behind: not yet agreed) */
    int stopping;
    MPI_Comm comm;
    /* below MULTIPLE: the jobs whose outcome the ranks still have to agree
     * on, in issue order, the agreement under way (the head's), and how
     * many of them have still to make their transfers */
    struct rio_job *ahead, **atail;
    int agreeing, unmade;
    struct rio_agree_nb ag;
    struct rio_lane *bnext; /* on the list of lanes with such jobs */
    int listed;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cv = PTHREAD_COND_INITIALIZER;
static struct rio_job *qhead, **qtail = &qhead;
static pthread_t threads[MAX_THREADS];
static struct server servers[MAX_THREADS]; /* the I/O threads' placement */
static int nthreads, stopping;
static int completers; /* threads settling cancelled jobs (greq_cancel) */
static int mode = -1;
static int self_keyval = MPI_KEYVAL_INVALID;
static pthread_once_t hook_once = PTHREAD_ONCE_INIT;

/* progress mode: Open MPI's registration of a progress function, and the
 * jobs that have run and wait for it to complete their requests (in poll
 * mode: the orphans that have run) */
typedef int (*progress_fn)(void);
static int (*progress_register)(progress_fn), (*progress_unregister)(progress_fn);
static struct rio_job *done_head;
static int done_count; /* atomic: the list's length, read without the lock */
static long long requests_open; /* generalized requests started, not yet completed */
static int progress(void);

/* below MULTIPLE: the lanes with jobs awaiting agreement, how many such
 * jobs (read without the lock), and whether a thread is driving them */
static struct rio_lane *behind_lanes;
static int behind_pending, driving;
#define LANE_ALL ((struct rio_job *)-1)
static void lane_agree(struct rio_lane *l, struct rio_job *until);

/* ---- mode -------------------------------------------------------------- */

static int threads_wanted(void)
{
    const char *e = getenv("RESONIO_IO_THREADS");
    if (!e || !*e)
        return 2;
    char *end;
    long n = strtol(e, &end, 10);
    if (*end || n < 0)
        return 2;
    return n > MAX_THREADS ? MAX_THREADS : (int)n;
}

#ifdef RIO_HAVE_MPIX_GREQUEST
#define POLL_HOOK 1
#else
#define POLL_HOOK 0
#endif

/* Open MPI's progress functions, looked up and ours registered; 0 when
 * they cannot be found (another MPI library). */
static int progress_hook(void)
{
    *(void **)&progress_register = dlsym(RTLD_DEFAULT, "opal_progress_register");
    *(void **)&progress_unregister = dlsym(RTLD_DEFAULT, "opal_progress_unregister");
    if (!progress_register || !progress_unregister)
        return 0;
    return progress_register(progress) == 0; /* OPAL_SUCCESS */
}

int rio__async_mode(void)
{
    int m = __atomic_load_n(&mode, __ATOMIC_ACQUIRE);
    if (m >= 0)
        return m;
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
#ifdef RIO_SMPI
    /* SimGrid's simulated ranks are contexts of one process that the
     * simulator schedules: a thread of our own could neither call into it
     * nor take simulated time */
    int no_threads = 1;
#else
    int no_threads = threads_wanted() == 0;
#endif
    if (no_threads)
        m = RIO_ASYNC_NONE;
    else if (level == MPI_THREAD_MULTIPLE)
        m = RIO_ASYNC_THREAD;
    else if (POLL_HOOK)
        m = RIO_ASYNC_POLL;
    else
        m = progress_hook() ? RIO_ASYNC_PROGRESS : RIO_ASYNC_NONE;
    __atomic_store_n(&mode, m, __ATOMIC_RELEASE);
    return m;
}

/* ---- jobs -------------------------------------------------------------- */

/* Drop one reference; the last frees the job.  With lock held. */
static void job_unref(struct rio_job *j)
{
    if (--j->refs > 0)
        return;
    free(j->filename);
    free(j);
}

static void file_unlink(struct rio_job *j)
{
    if (!j->fprev)
        return;
    *j->fprev = j->fnext;
    if (j->fnext)
        j->fnext->fprev = j->fprev;
    j->fnext = NULL;
    j->fprev = NULL;
}

/* The job's MPI error code, made once.  MPI may be called here; the lock
 * is not held. */
static void make_code(struct rio_job *j)
{
    if (!j->err || j->code != MPI_SUCCESS)
        return;
    if (j->detail[0])
        rio__err_detail("%s", j->detail);
    int code = rio__err_to_mpi(j->err, j->op, j->filename);
    pthread_mutex_lock(&lock);
    j->code = code;
    pthread_mutex_unlock(&lock);
}

/* Put a job that has run on the done list, for progress() to complete its
 * request.  With lock held. */
static void done_push(struct rio_job *j)
{
    j->completed = 1;
    j->qnext = done_head;
    done_head = j;
    __atomic_add_fetch(&done_count, 1, __ATOMIC_RELEASE);
}

/* MPI_Grequest_complete, counted.  MPI is called; the lock is not held. */
static void complete_req(struct rio_job *j)
{
    make_code(j);
    rio__stat_add(&requests_open, -1);
    MPI_Grequest_complete(j->req);
}

/* Run one job on an I/O thread and settle it (a cancelled one, moving
 * nothing, in the thread that cancels it). */
static void job_run(struct rio_job *j)
{
    MPI_Offset done = 0;
    int err = 0;
    if (j->fh && !j->cancelled)
        rio__stat_add_time(&j->fh->stats.time_nb_start, rio__now() - j->t_issue);
    if (!j->cancelled) {
        rio__err_detail_clear();
        err = j->run_coll ? j->run_coll(j->arg, j->lane->comm, &done) : j->run(j->arg, &done);
        if (err)
            rio__strcpy(j->detail, sizeof j->detail, rio__err_detail_peek());
        rio__err_detail_clear();
    }
    j->release(j->arg);
    j->arg = NULL;
    if (j->fh && !j->cancelled) {
        rio__stat_add(&j->fh->stats.nb_background, 1);
        rio__stat_add_time(&j->fh->stats.time_nb_overlap, rio__now() - j->t_issue);
    }
    pthread_mutex_lock(&lock);
    j->err = err;
    j->done = done;
    j->state = DONE;
    if (j->behind) { /* its transfers are made; the lane's agreement settles it */
        if (j->fh) {
            j->fh->jobs_running--;
            j->fh->writes_running -= j->write;
        }
        j->lane->unmade--;
        pthread_cond_broadcast(&done_cv);
        pthread_mutex_unlock(&lock);
        return;
    }
    /* an internal job (no request) is collected by rio__async_wait_job */
    int complete_here = mode == RIO_ASYNC_THREAD && j->req != MPI_REQUEST_NULL;
    if (complete_here)
        j->completed = 1;
    if (mode == RIO_ASYNC_PROGRESS || j->orphan)
        done_push(j); /* the request's reference keeps the job until then */
    pthread_cond_broadcast(&done_cv);
    pthread_mutex_unlock(&lock);
    if (complete_here) /* the request's free function may run inside (Open
                          MPI, after an MPI_Request_free): it takes the lock */
        complete_req(j);
    pthread_mutex_lock(&lock);
    j->state = SETTLED;
    if (j->fh) {
        j->fh->jobs_running--;
        j->fh->writes_running -= j->write;
    }
    if (j->lane)
        j->lane->unsettled--;
    pthread_cond_broadcast(&done_cv);
    job_unref(j);
    pthread_mutex_unlock(&lock);
}

/* ---- where a woken thread runs --------------------------------------------
 *
 * A thread of ours that waits for work is woken by the caller's thread as
 * it issues a call.  Left to itself, the kernel wakes it where it last
 * ran, which may be another processor that has gone idle.  On this
 * project's machines (virtual machines of 2 processors whose kernel packs
 * tasks onto few processors: sched_vcpu_pack on its command line) the
 * thread then started 18-35 ms after the wake, at 1 rank, nearly every
 * time, against 0.1-0.2 ms once it was woken on the caller's own
 * processor; a 512 MiB write to the page cache takes 40-60 ms there, so
 * half of it could not hide.  So a waker, before it wakes a waiting
 * thread, sets the thread's affinity to the waker's processor
 * (where_woken), and the thread, once it runs, takes its own affinity
 * back (where_settle):
 *   - where the caller has left the processor (it sleeps, waits or blocks
 *     in a call: the case the kernel handled slowly), it stays;
 *   - where the caller still runs or waits to (it computes: the thread
 *     got the processor at the end of the caller's time slice, 1-5 ms
 *     measured), it leaves for another processor of its mask, so as not
 *     to share the caller's, then takes its whole mask back.  An I/O
 *     thread rather leaves the job to a second one: the issue also calls
 *     another waiting I/O thread, without placement, which the kernel
 *     starts on another processor as it did before (placed alone, the
 *     thread that moved away started 33-40 ms late under a CPU loop,
 *     against 21-32 ms for the kernel's placement).
 * The caller's state is its line in /proc (R: running or waiting to run);
 * without /proc, a start later than NEAR_LATE after the wake counts as
 * the caller still running.  The threads run as SCHED_BATCH, so that a
 * wake on the caller's processor does not preempt the caller inside the
 * call that issues (it did: the issue took 32-37 ms).  Nothing is done
 * where the thread's mask is one processor (an MPI launcher's binding) or
 * with RESONIO_IO_WAKE=any.
 */
#define NEAR_LATE 1e-3

static int far_coming; /* I/O threads called without placement, not yet running */

static int wake_near(void)
{
    static int v = -1;
    if (v < 0) {
        const char *e = getenv("RESONIO_IO_WAKE");
        v = !(e && !strcmp(e, "any"));
    }
    return v;
}

/* The calling thread becomes s, named name (what top -H and perf show):
 * its own mask read, SCHED_BATCH.  With lock held. */
static void where_start(struct server *s, const char *name)
{
    s->thread = pthread_self();
    pthread_setname_np(s->thread, name);
    s->spread = 0;
    if (!wake_near())
        return;
    if (!pthread_getaffinity_np(s->thread, sizeof s->mask, &s->mask))
        s->spread = CPU_COUNT(&s->mask) > 1;
    struct sched_param none = {0};
    if (s->spread)
        pthread_setschedparam(s->thread, SCHED_BATCH, &none);
}

/* Before a wake: put s on the calling thread's processor.  Whether it
 * did.  With lock held. */
static int where_woken(struct server *s)
{
    if (!s->spread)
        return 0;
    int cpu = sched_getcpu();
    if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &s->mask))
        return 0;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (pthread_setaffinity_np(s->thread, sizeof one, &one))
        return 0;
    s->near = 1;
    s->waker = (pid_t)syscall(SYS_gettid);
    s->woken = rio__now();
    return 1;
}

/* Whether thread tid of this process is running or waits for a processor
 * (its state R in /proc), 1; asleep, 0; -1 where that cannot be read. */
static int thread_runs(pid_t tid)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    int r = -1;
    if (fgets(line, sizeof line, f)) {
        const char *p = strrchr(line, ')'); /* after the name, which may hold anything */
        if (p && p[1] == ' ' && p[2])
            r = p[2] == 'R';
    }
    fclose(f);
    return r;
}

/* s, woken, takes its own mask back: from elsewhere if it has work and
 * the caller kept its processor (above).  An I/O thread leaves the work
 * instead (returns 0) when another was called without placement and is
 * on its way: that one goes where the kernel puts it, as this one would
 * now.  With lock held; dropped while /proc is read. */
static int where_settle(struct server *s, int work, int pool)
{
    if (s->far) {
        s->far = 0;
        far_coming--;
    }
    if (!s->near)
        return 1;
    s->near = 0;
    int cpu = sched_getcpu();
    int runs = 0;
    if (work) {
        /* /proc is read without the lock, which every submission takes;
         * no waker places s meanwhile (it is not waiting) */
        pid_t waker = s->waker;
        double woken = s->woken;
        pthread_mutex_unlock(&lock);
        runs = thread_runs(waker);
        if (runs < 0) /* no /proc: the time it took to start says it */
            runs = rio__now() - woken > NEAR_LATE;
        pthread_mutex_lock(&lock);
    }
    int leave = runs && pool && far_coming > 0;
    if (runs && !leave && cpu >= 0 && cpu < CPU_SETSIZE) {
        cpu_set_t away = s->mask;
        CPU_CLR(cpu, &away);
        if (CPU_COUNT(&away))
            pthread_setaffinity_np(s->thread, sizeof away, &away);
    }
    pthread_setaffinity_np(s->thread, sizeof s->mask, &s->mask);
    return !leave;
}

/* Wake s, which waits on cv: on the calling thread's processor if it waits
 * and near (above), else where the kernel puts it; it is then called, and
 * no other waker places it.  Whether it was put on the caller's processor.
 * With lock held. */
static int wake(struct server *s, pthread_cond_t *cv, int near)
{
    int placed = 0;
    if (s->waiting) {
        s->waiting = 0;
        if (near)
            placed = where_woken(s);
        else if (!s->far) {
            s->far = 1;
            far_coming++;
        }
    }
    pthread_cond_signal(cv);
    return placed;
}

/* Run the jobs of the queue head/tail, in order, as they come, until
 * *stop is set and the queue is empty: the pool's workers on the shared
 * queue, a lane's thread on its file's collective jobs.  s: the thread's
 * placement, seen by its wakers; name: the thread's. */
static void serve(struct server *s, const char *name, int pool, struct rio_job **head,
                  struct rio_job ***tail, pthread_cond_t *cv, const int *stop)
{
    pthread_mutex_lock(&lock);
    where_start(s, name);
    for (;;) {
        /* every wake is followed by the settling of where it put s */
        int leave = 0; /* the job is left to a thread on its way */
        while (leave || (!*head && !*stop)) {
            s->waiting = 1;
            pthread_cond_wait(cv, &lock);
            s->waiting = 0;
            leave = !where_settle(s, *head != NULL, pool);
        }
        if (!*head)
            break;
        struct rio_job *j = *head;
        *head = j->qnext;
        if (!*head)
            *tail = head;
        j->state = RUNNING;
        pthread_mutex_unlock(&lock);
        job_run(j);
        pthread_mutex_lock(&lock);
    }
    pthread_mutex_unlock(&lock);
}

/* A lane's thread: its jobs in issue order until the lane ends. */
static void *lane_main(void *arg)
{
    struct rio_lane *l = arg;
    serve(&l->srv, "rio-lane", 0, &l->head, &l->tail, &l->cv, &l->stopping);
    return NULL;
}

static void *worker(void *arg)
{
    struct server *s = arg;
    serve(s, "rio-io", 1, &qhead, &qtail, &s->cv, &stopping);
    return NULL;
}

/* progress mode: called by Open MPI's progress engine in a thread that is
 * inside an MPI call; completes the requests of the jobs that have run.
 * Poll mode: completes the orphans' requests (complete_orphans).  Returns
 * how many (Open MPI's convention: events handled). */
static int progress(void)
{
    if (__atomic_load_n(&behind_pending, __ATOMIC_ACQUIRE)) {
        struct rio_lane *ls[16];
        int n = 0;
        pthread_mutex_lock(&lock);
        for (struct rio_lane *l = driving ? NULL : behind_lanes; l && n < 16; l = l->bnext)
            ls[n++] = l;
        pthread_mutex_unlock(&lock);
        for (int i = 0; i < n; i++)
            lane_agree(ls[i], NULL);
    }
    if (!__atomic_load_n(&done_count, __ATOMIC_ACQUIRE))
        return 0;
    pthread_mutex_lock(&lock);
    struct rio_job *list = done_head;
    done_head = NULL;
    __atomic_store_n(&done_count, 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lock);
    int n = 0;
    while (list) {
        struct rio_job *j = list;
        list = j->qnext;
        int orphan = j->orphan; /* read before: completing may free the job */
        complete_req(j);
        if (orphan) { /* its free function ran at MPI_Request_free */
            pthread_mutex_lock(&lock);
            job_unref(j);
            pthread_mutex_unlock(&lock);
        }
        n++;
    }
    return n;
}

/* Poll mode: complete the requests the user freed before they completed,
 * whose jobs have run.  In a thread that may call MPI. */
static void complete_orphans(void)
{
    if (mode == RIO_ASYNC_POLL || __atomic_load_n(&behind_pending, __ATOMIC_ACQUIRE))
        progress();
}

/* Below MULTIPLE: the ranks agree on the outcome of l's jobs whose
 * transfers are made, one job at a time in issue order (so every rank's
 * agreements on the lane's communicator come in the same order), and
 * each settled job's request is completed.  until NULL: as far as it can
 * without waiting; a job: until that one is settled; LANE_ALL: until none
 * is left, waiting for the transfers and the other ranks.  In a thread that
 * may call MPI, the lock not held.  A call inside another's (MPI's
 * progress runs progress() inside the agreement's MPI_Test) returns. */
static void lane_agree(struct rio_lane *l, struct rio_job *until)
{
    int block = until != NULL;
    pthread_mutex_lock(&lock);
    if (driving) {
        pthread_mutex_unlock(&lock);
        return;
    }
    driving = 1;
    for (;;) {
        struct rio_job *j = l->ahead;
        if (!j || (until != LANE_ALL && until && until->state == SETTLED))
            break;
        if (j->state < DONE) { /* its transfers are still being made */
            if (!block)
                break;
            pthread_cond_wait(&done_cv, &lock);
            continue;
        }
        int started = l->agreeing;
        l->agreeing = 1;
        pthread_mutex_unlock(&lock);
        int agreed = 0, err = 0;
        char detail[RIO_ERR_DETAIL_MAX];
        if (!started && rio__agree_nb_start(&l->ag, l->comm, j->err, j->detail)) {
            err = RIO_E_NOMEM; /* not agreed: this rank's own */
            rio__strcpy(detail, sizeof detail, rio__err_detail_peek());
            agreed = 1;
        }
        if (!agreed)
            agreed = rio__agree_nb_test(&l->ag, block, &err, detail, sizeof detail);
        pthread_mutex_lock(&lock);
        if (!agreed)
            break;
        l->agreeing = 0;
        l->ahead = j->anext;
        if (!l->ahead)
            l->atail = &l->ahead;
        __atomic_sub_fetch(&behind_pending, 1, __ATOMIC_RELEASE);
        j->err = err;
        rio__strcpy(j->detail, sizeof j->detail, err ? detail : "");
        j->state = SETTLED;
        l->unsettled--;
        pthread_cond_broadcast(&done_cv);
        int complete = j->req != MPI_REQUEST_NULL && !j->completed, orphan = j->orphan;
        if (complete)
            j->completed = 1;
        pthread_mutex_unlock(&lock);
        if (complete) /* the free function may run inside: it takes the lock */
            complete_req(j);
        pthread_mutex_lock(&lock);
        if (orphan) /* freed early (MPICH): the request's reference (the pool's
                       remains, so this frees nothing) */
            j->refs--;
        job_unref(j); /* the pool's */
    }
    if (!l->ahead && l->listed) { /* off the list of lanes to drive */
        struct rio_lane **p = &behind_lanes;
        while (*p != l)
            p = &(*p)->bnext;
        *p = l->bnext;
        l->listed = 0;
    }
    driving = 0;
    pthread_mutex_unlock(&lock);
}

int rio__async_requests_open(void)
{
    complete_orphans();
    return (int)rio__stat_get(&requests_open);
}

/* End a lane: its thread runs what is queued, then stops and is joined;
 * its communicator is freed (collective: every rank's close). */
static void lane_end(struct rio_lane *l)
{
    lane_agree(l, LANE_ALL); /* collective: every rank's close */
    pthread_mutex_lock(&lock);
    l->stopping = 1;
    pthread_cond_signal(&l->cv);
    pthread_mutex_unlock(&lock);
    pthread_join(l->thread, NULL);
    rio__comm_give(&l->comm); /* kept for the next file's lane */
    pthread_cond_destroy(&l->cv);
    free(l);
}

/* ---- the pool's start and end ------------------------------------------ */

/* Let the queued jobs run, then stop and join the threads.  abandon: the
 * process is ending without MPI_Finalize; queued jobs are dropped (their
 * requests can never be waited for) and only running ones finish. */
static void pool_stop(int abandon)
{
    pthread_mutex_lock(&lock);
    if (abandon) {
        qhead = NULL;
        qtail = &qhead;
    }
    stopping = 1;
    for (int i = 0; i < nthreads; i++)
        pthread_cond_signal(&servers[i].cv);
    int n = nthreads;
    nthreads = 0;
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < n; i++) {
        pthread_join(threads[i], NULL);
        pthread_cond_destroy(&servers[i].cv);
    }
    pthread_mutex_lock(&lock);
    while (completers)
        pthread_cond_wait(&done_cv, &lock);
    stopping = 0;
    pthread_mutex_unlock(&lock);
}

static int self_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm;
    (void)val;
    (void)extra;
    (void)keyval;
    pool_stop(0);
    progress(); /* jobs run to the end: their requests complete */
    if (mode == RIO_ASYNC_PROGRESS)
        progress_unregister(progress);
    return MPI_SUCCESS;
}

/* The finalize hook, set once by the first submission, before any I/O
 * thread exists. */
static void set_hook(void)
{
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &self_keyval, NULL) ==
        MPI_SUCCESS)
        MPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, NULL);
}

__attribute__((destructor)) static void unload(void)
{
    pool_stop(1);
}

/* Start the threads if none run.  With lock held; the MPI calls that set
 * the finalize hook are made by the caller (rio__async_submit) first. */
static int pool_start(void)
{
    if (nthreads)
        return 0;
    int want = threads_wanted();
    for (int i = 0; i < want; i++) {
        struct server *s = &servers[nthreads];
        *s = (struct server){0};
        pthread_cond_init(&s->cv, NULL);
        if (pthread_create(&threads[nthreads], NULL, worker, s)) {
            pthread_cond_destroy(&s->cv);
            break;
        }
        nthreads++;
    }
    if (!nthreads) {
        rio__err_detail("no I/O thread could be started");
        return RIO_E_NOMEM;
    }
    return 0;
}

/* ---- the generalized request's functions ------------------------------- */

static int greq_query(void *extra, MPI_Status *status)
{
    struct rio_job *j = extra;
    pthread_mutex_lock(&lock);
    int cancelled = j->cancelled, code = j->code;
    MPI_Offset done = j->done;
    pthread_mutex_unlock(&lock);
    MPI_Status_set_elements_x(status, MPI_BYTE, cancelled ? 0 : (MPI_Count)done);
    MPI_Status_set_cancelled(status, cancelled);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    status->MPI_ERROR = code;
    return code;
}

static int greq_free(void *extra)
{
    struct rio_job *j = extra;
    pthread_mutex_lock(&lock);
    file_unlink(j);
    if (j->orphan) {
        /* called again as the orphan completes: progress() drops the
         * request's reference after it */
    } else if (mode == RIO_ASYNC_POLL && !j->completed) {
        /* MPICH frees early: the request still waits for its completion
         * (the job keeps the request's reference until then) */
        j->orphan = 1;
        if (j->state >= DONE && !j->behind) /* a behind job's agreement completes it */
            done_push(j);
    } else {
        job_unref(j);
    }
    pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
}

/* Thread mode: settle a cancelled job (greq_cancel), then count out. */
static void *completer(void *arg)
{
    job_run(arg);
    pthread_mutex_lock(&lock);
    completers--;
    pthread_cond_broadcast(&done_cv);
    pthread_mutex_unlock(&lock);
    return NULL;
}

/* Take j off the pool's queue.  With lock held; j is queued there. */
static void queue_remove(struct rio_job *j)
{
    struct rio_job **p = &qhead;
    while (*p != j)
        p = &(*p)->qnext;
    *p = j->qnext;
    if (qtail == &j->qnext)
        qtail = p;
    j->qnext = NULL;
}

static int greq_cancel(void *extra, int complete)
{
    struct rio_job *j = extra;
    (void)complete;
    pthread_mutex_lock(&lock);
    /* a collective job runs even so: the other ranks' jobs wait for it */
    int now = j->state == QUEUED && !j->lane;
    if (now) {
        j->cancelled = 1;
        queue_remove(j);
        j->state = RUNNING;
    }
    pthread_mutex_unlock(&lock);
    if (!now)
        return MPI_SUCCESS;
    /* Settled now, moving nothing, rather than when an I/O thread frees
     * up.  In thread mode settling completes the request, and MPICH holds
     * its lock while it runs this function: a thread of its own does it. */
    if (mode != RIO_ASYNC_THREAD) {
        job_run(j);
        return MPI_SUCCESS;
    }
    pthread_attr_t attr;
    pthread_t t;
    int started = !pthread_attr_init(&attr);
    pthread_mutex_lock(&lock);
    if (started) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        started = !pthread_create(&t, &attr, completer, j);
        pthread_attr_destroy(&attr);
    }
    if (started) {
        completers++;
    } else { /* back at the queue's head: the next free I/O thread settles it */
        j->state = QUEUED;
        j->qnext = qhead;
        if (!qhead)
            qtail = &j->qnext;
        qhead = j;
    }
    pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
}

#ifdef RIO_HAVE_MPIX_GREQUEST
/* Complete j's request if its job has run and nobody did yet.  MPI is
 * called; the lock is not held. */
static void complete_if_done(struct rio_job *j)
{
    pthread_mutex_lock(&lock);
    int now = j->state >= DONE && !j->completed;
    if (now)
        j->completed = 1;
    pthread_mutex_unlock(&lock);
    if (now)
        complete_req(j);
    complete_orphans();
}

/* Called by MPICH inside MPI_Test, MPI_Wait and their kin. */
static int greq_poll(void *extra, MPI_Status *status)
{
    (void)status;
    struct rio_job *j = extra;
    if (j->behind)
        lane_agree(j->lane, NULL);
    else
        complete_if_done(j);
    return MPI_SUCCESS;
}

/* Called by MPICH inside MPI_Wait and MPI_Waitall, which then expect the
 * requests complete: block until the I/O threads have run every job
 * given, rather than spin in the progress loop, and complete them.  A job
 * needs no MPI progress to finish, so blocking cannot deadlock. */
static int greq_wait(int count, void **states, double timeout, MPI_Status *status)
{
    (void)timeout;
    (void)status;
    for (int i = 0; i < count; i++) {
        struct rio_job *j = states[i];
        if (j->behind) { /* its transfers, then the agreements up to it */
            lane_agree(j->lane, j);
            continue;
        }
        pthread_mutex_lock(&lock);
        while (j->state < DONE)
            pthread_cond_wait(&done_cv, &lock);
        pthread_mutex_unlock(&lock);
        complete_if_done(j);
    }
    return MPI_SUCCESS;
}
#endif

/* ---- the file layer's interface ---------------------------------------- */

/* A new job of fh and, unless internal, its generalized request (given
 * to the user in *request).  NULL on failure (the detail set). */
static struct rio_job *job_new(rio_file *fh, const char *op, int write, void (*release)(void *),
                               void *arg, MPI_Request *request)
{
    struct rio_job *j = rio__calloc(1, sizeof *j);
    char *name = j ? strdup(fh->filename) : NULL;
    if (!j || !name) {
        free(j);
        return NULL;
    }
    *j = (struct rio_job){.release = release,
                          .arg = arg,
                          .fh = fh,
                          .op = op,
                          .filename = name,
                          .write = write,
                          .state = QUEUED,
                          .refs = 2,
                          .code = MPI_SUCCESS,
                          .t_issue = rio__now(),
                          .req = MPI_REQUEST_NULL};
    if (!request)
        return j;

    pthread_once(&hook_once, set_hook);
    int rc;
#ifdef RIO_HAVE_MPIX_GREQUEST
    if (mode == RIO_ASYNC_POLL)
        rc = MPIX_Grequest_start(greq_query, greq_free, greq_cancel, greq_poll, greq_wait, j,
                                 &j->req);
    else
#endif
        rc = MPI_Grequest_start(greq_query, greq_free, greq_cancel, j, &j->req);
    if (rc != MPI_SUCCESS) {
        free(name);
        free(j);
        rio__err_detail("the MPI library refused a generalized request");
        return NULL;
    }
    rio__stat_add(&requests_open, 1);
    *request = j->req;
    return j;
}

/* Put j on fh's lists (a request on the outstanding list, the counts of
 * running jobs).  With lock held. */
static void job_link(struct rio_job *j)
{
    rio_file *fh = j->fh;
    if (j->req != MPI_REQUEST_NULL) {
        j->fnext = fh->jobs;
        if (fh->jobs)
            fh->jobs->fprev = &j->fnext;
        fh->jobs = j;
        j->fprev = &fh->jobs;
    }
    fh->jobs_running++;
    fh->writes_running += j->write;
}

/* A job that cannot be queued: its request completes at once, in error. */
static void job_fail(struct rio_job *j, int err)
{
    j->err = err;
    rio__strcpy(j->detail, sizeof j->detail, rio__err_detail_peek());
    rio__err_detail_clear();
    j->release(j->arg);
    j->arg = NULL;
    j->state = SETTLED;
    j->refs = 1;
    j->completed = 1;
    complete_req(j);
}

int rio__async_submit(rio_file *fh, const char *op, int write, int (*run)(void *, MPI_Offset *),
                      void (*release)(void *), void *arg, MPI_Request *request)
{
    if (rio__async_mode() == RIO_ASYNC_NONE)
        return RIO_E_ARG; /* the caller asked rio__async_mode first */
    complete_orphans();
    struct rio_job *j = job_new(fh, op, write, release, arg, request);
    if (!j)
        return RIO_E_NOMEM;
    j->run = run;

    pthread_mutex_lock(&lock);
    int err = pool_start(), placed = 0;
    if (!err) {
        job_link(j);
        *qtail = j;
        qtail = &j->qnext;
        /* a waiting thread is called to the caller's processor, and
         * another, if one waits, where the kernel puts it (where a woken
         * thread runs, above); if none waits, every one is busy and takes
         * the job when it comes back to the queue */
        int near = 1; /* the first one called; a second only beside a placed one */
        for (int i = 0; i < nthreads; i++)
            if (servers[i].waiting) {
                placed |= wake(&servers[i], &servers[i].cv, near);
                if (!near || !placed)
                    break;
                near = 0;
            }
    }
    pthread_mutex_unlock(&lock);
    if (err) {
        job_fail(j, err);
        return 0;
    }
    rio__stat_add(&fh->stats.nb_queued, 1);
    rio__stat_add(&fh->stats.nb_near, placed);
    return 0;
}

int rio__async_coll_ok(void)
{
    return rio__async_mode() == RIO_ASYNC_THREAD;
}

/* fh's lane, made (collectively: every rank's first background collective
 * call on fh) if it has none.  Every rank agrees on whether it could. */
static int lane_get(rio_file *fh, struct rio_lane **out)
{
    struct rio_lane *l = fh->lane;
    int err = 0;
    if (!l) {
        /* the duplicate is collective: every rank makes it, also one
         * without the memory for its lane */
        MPI_Comm comm = MPI_COMM_NULL;
        rio__comm_take(fh->comm, RIO_COMM_DUP, &comm, &fh->stats.comms_made,
                       &fh->stats.comms_reused);
        l = rio__calloc(1, sizeof *l);
        if (!l) {
            err = RIO_E_NOMEM;
        } else {
            l->tail = &l->head;
            l->atail = &l->ahead;
            l->comm = comm;
            pthread_cond_init(&l->cv, NULL);
            if (comm == MPI_COMM_NULL || pthread_create(&l->thread, NULL, lane_main, l)) {
                rio__err_detail("no thread for collective calls in the background");
                err = RIO_E_NOMEM;
                pthread_cond_destroy(&l->cv);
                free(l);
                l = NULL;
            } else {
                comm = MPI_COMM_NULL; /* the lane's now */
            }
        }
        /* a rank without a lane would never enter the others' calls */
        int agreed = rio__agree(fh->comm, err);
        rio__comm_give(&comm);
        if (agreed && l) {
            lane_end(l);
            l = NULL;
        }
        if (agreed)
            return agreed;
        fh->lane = l;
    }
    *out = l;
    return 0;
}

/* A collective call this rank could not queue (no memory for its job or
 * its arguments) that the other ranks' lanes will run: this rank runs its
 * part here, in the caller's thread, after the calls its lane holds and on
 * the lane's communicator, so the calls still meet in issue order.  The
 * call's own agreement makes its error every rank's. */
static int run_now(rio_file *fh, struct rio_lane *l, int (*run)(void *, MPI_Comm, MPI_Offset *),
                   void *arg)
{
    rio__async_lane_drain(fh);
    MPI_Offset done = 0;
    int err = run(arg, l->comm, &done);
    return err ? err : RIO_E_NOMEM;
}

int rio__async_run_coll_now(rio_file *fh, int (*run)(void *, MPI_Comm, MPI_Offset *), void *arg)
{
    struct rio_lane *l;
    int err = lane_get(fh, &l);
    return err ? err : run_now(fh, l, run, arg);
}

int rio__async_submit_coll(rio_file *fh, const char *op, int write,
                           int (*run)(void *, MPI_Comm, MPI_Offset *), void (*release)(void *),
                           void (*fail)(void *, int), void *arg, MPI_Request *request,
                           struct rio_job **internal)
{
    struct rio_lane *l;
    int err = lane_get(fh, &l);
    if (err)
        return err;
    struct rio_job *j = job_new(fh, op, write, release, arg, request);
    if (!j) {
        fail(arg, RIO_E_NOMEM);
        return run_now(fh, l, run, arg);
    }
    j->run_coll = run;
    j->lane = l;
    pthread_mutex_lock(&lock);
    job_link(j);
    l->unsettled++;
    *l->tail = j;
    l->tail = &j->qnext;
    int placed = wake(&l->srv, &l->cv, 1);
    pthread_mutex_unlock(&lock);
    if (internal)
        *internal = j;
    rio__stat_add(&fh->stats.nb_queued, 1);
    rio__stat_add(&fh->stats.nb_near, placed);
    return 0;
}

int rio__async_wait_job(struct rio_job *j, MPI_Offset *done)
{
    if (j->behind)
        lane_agree(j->lane, j);
    pthread_mutex_lock(&lock);
    while (j->state != SETTLED)
        pthread_cond_wait(&done_cv, &lock);
    int err = j->err;
    *done = j->done;
    if (err && j->detail[0])
        rio__err_detail("%s", j->detail);
    job_unref(j);
    pthread_mutex_unlock(&lock);
    return err;
}

void rio__async_lane_drain(rio_file *fh)
{
    if (!fh->lane)
        return;
    lane_agree(fh->lane, LANE_ALL);
    pthread_mutex_lock(&lock);
    while (fh->lane->unsettled)
        pthread_cond_wait(&done_cv, &lock);
    pthread_mutex_unlock(&lock);
}

void rio__async_lane_wait_transfers(rio_file *fh)
{
    if (!fh->lane)
        return;
    pthread_mutex_lock(&lock);
    while (fh->lane->unmade)
        pthread_cond_wait(&done_cv, &lock);
    pthread_mutex_unlock(&lock);
}

int rio__async_behind_ok(void)
{
    int m = rio__async_mode();
    return m == RIO_ASYNC_POLL || m == RIO_ASYNC_PROGRESS;
}

int rio__async_submit_behind(rio_file *fh, const char *op, int write,
                             int (*run)(void *, MPI_Offset *), void (*release)(void *), void *arg,
                             MPI_Request *request, struct rio_job **internal)
{
    complete_orphans(); /* every resonio call moves the lanes on */
    struct rio_lane *l;
    int err = lane_get(fh, &l);
    struct rio_job *j = err ? NULL : job_new(fh, op, write, release, arg, request);
    if (!j) {
        /* no lane on any rank (agreed), or no job on this one: the transfers
         * are made here, and this rank agrees at once, in its place */
        MPI_Offset d = 0;
        int werr = run(arg, &d);
        release(arg);
        if (err) /* the lane's failure is every rank's */
            return rio__agree(fh->comm, werr ? werr : err);
        lane_agree(l, LANE_ALL);
        struct rio_agree_nb s;
        char detail[RIO_ERR_DETAIL_MAX] = "";
        int agreed = RIO_E_NOMEM;
        if (!rio__agree_nb_start(&s, l->comm, RIO_E_NOMEM, rio__err_detail_peek()))
            rio__agree_nb_test(&s, 1, &agreed, detail, sizeof detail);
        rio__err_detail("%s", detail);
        return agreed ? agreed : RIO_E_NOMEM;
    }
    j->run = run;
    j->lane = l;
    j->behind = 1;
    pthread_mutex_lock(&lock);
    job_link(j);
    l->unsettled++;
    l->unmade++;
    *l->tail = j;
    l->tail = &j->qnext;
    *l->atail = j;
    l->atail = &j->anext;
    __atomic_add_fetch(&behind_pending, 1, __ATOMIC_RELEASE);
    if (!l->listed) {
        l->bnext = behind_lanes;
        behind_lanes = l;
        l->listed = 1;
    }
    int placed = wake(&l->srv, &l->cv, 1);
    pthread_mutex_unlock(&lock);
    if (internal)
        *internal = j;
    rio__stat_add(&fh->stats.nb_queued, 1);
    rio__stat_add(&fh->stats.nb_near, placed);
    return 0;
}

void rio__async_drain(rio_file *fh, int writes_only)
{
    pthread_mutex_lock(&lock);
    while (writes_only ? fh->writes_running : fh->jobs_running)
        pthread_cond_wait(&done_cv, &lock);
    pthread_mutex_unlock(&lock);
}

int rio__async_pending(rio_file *fh)
{
    int n = 0;
    pthread_mutex_lock(&lock);
    for (struct rio_job *j = fh->jobs; j; j = j->fnext)
        n++;
    pthread_mutex_unlock(&lock);
    return n;
}

int rio__async_detach(rio_file *fh)
{
    rio__async_drain(fh, 0);
    complete_orphans();
    if (fh->lane) {
        lane_end(fh->lane);
        fh->lane = NULL;
    }
    int n = 0;
    pthread_mutex_lock(&lock);
    while (fh->jobs) {
        struct rio_job *j = fh->jobs;
        j->fh = NULL;
        file_unlink(j);
        n++;
    }
    pthread_mutex_unlock(&lock);
    return n;
}
