/*
 * app_cache.h - data that rarely changes, kept in the scheduler process:
 * app versions with their files, and the file lists of batches.
 *
 * Loaded from the database on first use and reloaded every
 * APP_CACHE_TTL seconds, so a request costs no statement for them.  A
 * batch's files never change once it exists; they are reloaded only
 * every BATCH_FILES_TTL seconds, as a safety net.
 */
#ifndef LOCSCHED_APP_CACHE_H
#define LOCSCHED_APP_CACHE_H

#include <time.h>

#include "db.h"
#include "db_gpu.h"
#include "db_locality.h"
#include "db_sched.h"

/* Seconds: app versions and the set of active batches (3 statements per
 * reload per process); short, so that a new app version or batch is
 * served within seconds of its creation, and a client is not told
 * "no app for your CPU" for long after an administrator added one. */
#define APP_CACHE_TTL 10
/* Seconds: the file list of a batch, which never changes once created. */
#define BATCH_FILES_TTL 600
#define APP_CACHE_MAX_BATCHES 256

struct app_version {
    struct db_app_version_row row;
    struct db_app_version_file_row *files;
    int nfiles;
};

/* One input file of a batch, compact: a batch may have 10^6 files. */
struct cached_file {
    int id;
    int file_num;
    int sticky;
    double nbytes;
    char md5_cksum[33];
    const char *name;            /* in the batch's string pool */
    const char *url;             /* "" when served from the download folder */
};

struct batch_files {
    int batch_id;
    struct cached_file *files;   /* indexed by file_num - first_num */
    int nfiles;
    int first_num;
    int *by_name;                /* indices into files, sorted by name */
    char *pool;                  /* names and URLs */
    time_t loaded_at;
    unsigned long last_use;      /* app_cache.batch_uses when last returned */
};

struct app_cache {
    struct app_version *avs;
    int navs;
    /* 1 when some app version runs on GPUs of this type (by enum
     * db_gpu_type): set with avs, so that a request need not scan them */
    int gpu_versions[DB_NGPU_TYPES];
    time_t loaded_at;
    struct batch_files batches[APP_CACHE_MAX_BATCHES];
    int nbatches;
    unsigned long batch_uses;    /* counts app_cache_batch() answers, for LRU */
    /* active batches (state IN_PROGRESS), refreshed with the app versions;
     * finish lines of the first APP_CACHE_MAX_BATCHES (by id) */
    int nactive_plain;
    int nactive_locality;
    struct db_active_batch active[APP_CACHE_MAX_BATCHES];
    int nactive;
    /* the cursors of the active locality batches, without host-specific
     * columns, for deciding whether a host stays in its team (kept by
     * job_source_locality.c; CURSOR_CACHE_TTL) */
    struct db_cursor_row *cursors;
    int ncursors;
    time_t cursors_loaded_at;
};

/* Seconds a process uses its cursor cache: a host's own cursor is read
 * fresh each request; the others only decide whether it should move, and
 * a join or a move reads them fresh before it writes. */
#define CURSOR_CACHE_TTL 5

/* The finish line of active batch batch_id, or NULL (not active, or
 * beyond the first APP_CACHE_MAX_BATCHES). */
const struct db_active_batch *app_cache_active_batch(const struct app_cache *ac, int batch_id);

/* Reload app versions if never loaded or older than the TTL.
 * Returns DB_OK or a db status (err text in db_error). */
int app_cache_refresh(struct app_cache *ac, struct db_conn *c, time_t now);

/* Forget what was loaded: the next refresh reloads everything (tests, and
 * tools that must see a new batch at once). */
void app_cache_invalidate(struct app_cache *ac);

/* The files of a batch (loading them if needed): DB_OK and *out, or the
 * load's db status.  Inside a transaction the status must be passed on:
 * a failed statement may have ended the transaction (db_commit() then
 * refuses it anyway).  The answer stays valid until APP_CACHE_MAX_BATCHES
 * other batches have been asked for (least recently used eviction), or
 * until it is reloaded after BATCH_FILES_TTL. */
int app_cache_batch_get(struct app_cache *ac, struct db_conn *c, int batch_id, time_t now,
                        const struct batch_files **out);

/* The same, NULL on error: for the callers that cannot pass a status on
 * (a batch loaded earlier in the request is in the cache). */
const struct batch_files *app_cache_batch(struct app_cache *ac, struct db_conn *c, int batch_id,
                                          time_t now);

/* File file_num of a batch, or NULL. */
const struct cached_file *batch_file(const struct batch_files *bf, int file_num);

/* The file of a batch with this name, or NULL. */
const struct cached_file *batch_file_by_name(const struct batch_files *bf, const char *name);

void app_cache_free(struct app_cache *ac);

#endif
