/*
 * emu_server.h - the real server side of the emulator: the scheduler's
 * request handler in-process (sched/scheduler/handler.h), the three daemons
 * in-process (daemons/daemon_passes.h), both on the emulator's clock, and
 * the database set-up and read-outs around them.
 *
 * Works on the private database of a sandbox ($LOCSCHED_CONFIG).  The
 * emulator owns that database while it runs: at start it aborts and
 * retires every batch still in progress (so that no earlier run's jobs
 * are served), closes their results in progress and takes their
 * workunits off the transitioner's list.  Batches are made by the real tools/create_batch (found
 * in $top_builddir or $LOCSCHED_BUILD_DIR).  Statements of its own use
 * slots 140..155 of its connection.
 */
#ifndef LOCSCHED_EMU_SERVER_H
#define LOCSCHED_EMU_SERVER_H

#include <time.h>

#include "buf.h"
#include "daemon.h"
#include "handler.h"

/* The emulator's clock: every part of the server reads it.  Every run
 * starts at EMU_EPOCH (2026-01-01 00:00 UTC), whatever the wall clock
 * says, so that a seed gives the same run at any hour. */
#define EMU_EPOCH 1767225600
void emu_clock_set(time_t now);
time_t emu_clock_now(void);

#define EMU_PLATFORM "emu-x86_64-linux"
#define EMU_APP "emuapp"
#define EMU_VERSION 100
#define EMU_GPU_PLAN "cuda"
#define EMU_GPU_TYPE "NVIDIA"

enum emu_daemon { EMU_WG, EMU_TR, EMU_LD, EMU_NDAEMONS };

struct emu_server {
    struct sched_ctx ctx;
    struct daemon d[EMU_NDAEMONS];
    char config_path[1200];
    char builddir[1024];
    int nusers;
    char (*auths)[65];
    int *userids;
    /* counters */
    long rpcs, rpcs_failed;
    unsigned long statements;
    double handler_secs;           /* wall time spent in sched_handle */
    double daemon_secs[EMU_NDAEMONS];
    long daemon_items[EMU_NDAEMONS];
};

/*
 * Open: a config next to $LOCSCHED_CONFIG with extra_config appended
 * ("key = value" lines, may be NULL), the scheduler context, the app and
 * its CPU and GPU versions, the daemons.  Quiet logs unless verbose.
 * Returns 0, or -1 with a reason in err.
 */
int emu_server_open(struct emu_server *s, const char *extra_config, int verbose, char *err,
                    size_t errlen);
void emu_server_close(struct emu_server *s);

/* Abort and retire every batch not yet complete, aborted or retired, and
 * forget earlier runs: their results in progress are closed, their
 * workunits need no transition, their hosts were never seen. */
int emu_server_retire_all(struct emu_server *s, char *err, size_t errlen);

/* Make n users (their authenticators in s->auths). */
int emu_server_users(struct emu_server *s, int n, char *err, size_t errlen);

struct emu_batch_spec {
    char name[64];
    int locality;
    int njobs;
    int nfiles;
    const int *first_file;         /* per job */
    const int *nfiles_job;         /* per job */
    double fpops_est;
    double file_bytes;
    int delay_bound;
    int replication, min_quorum;
    int ncursors;                  /* locality: 0 = the documented rule */
};

/* Create a batch with tools/create_batch; its id in *batch_id. */
int emu_server_create_batch(struct emu_server *s, const struct emu_batch_spec *b, int *batch_id,
                            char *err, size_t errlen);

/* One scheduler RPC through the real handler. */
void emu_server_rpc(struct emu_server *s, const char *body, size_t len, struct buf *reply,
                    struct sched_stats *st);

/* One pass of a daemon.  Returns its items or a negative status. */
long emu_server_daemon(struct emu_server *s, enum emu_daemon which);

/* What the database says of a batch. */
struct emu_batch_db {
    int state;
    int ncursors;
    long long workunits, wu_finished, wu_canonical, wu_error;
    long long results, unsent, in_progress, success, no_reply, other_over;
    long long user_dups;           /* (workunit, user) pairs with two results */
    long long backups;             /* results made as backups (tail replicas) */
    long long host_lost;           /* results whose host was presumed gone */
};

int emu_server_batch_db(struct emu_server *s, int batch_id, struct emu_batch_db *out, char *err,
                        size_t errlen);

/*
 * What a batch's jobs read and how many of them each host was sent, for
 * the one-range bound (emu_metrics.h): the workunits' first file and
 * file count in job order, and per host the distinct workunits of the
 * batch with a result sent to it (hostid set, whatever became of the
 * result), as test/emu/range_bound counts them.  Arrays are malloc'd;
 * emu_batch_work_free frees them.
 */
struct emu_batch_work {
    int njobs, nhosts;
    int *first_file, *nfiles;      /* per job, in job order */
    int *host_jobs;                /* per host that was sent a job */
};

int emu_server_batch_work(struct emu_server *s, int batch_id, struct emu_batch_work *out,
                          char *err, size_t errlen);
void emu_batch_work_free(struct emu_batch_work *w);

/* The state of a batch (BS_*), or -1 on error. */
int emu_server_batch_state(struct emu_server *s, int batch_id);

#endif
