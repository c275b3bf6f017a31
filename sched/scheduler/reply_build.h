/*
 * reply_build.h - from a handled request to the description of its reply.
 *
 * reply_build() gathers everything the reply carries (the jobs with their
 * app versions and input files, loading a batch's file list if the cache
 * lacks it; the acks, deletions, messages and no-work signals; the
 * request_delay) into a struct sched_reply, which sched_reply_write()
 * (sched/wire) turns into XML without any I/O.
 */
#ifndef LOCSCHED_REPLY_BUILD_H
#define LOCSCHED_REPLY_BUILD_H

#include "buf.h"
#include "handler.h"
#include "sched_reply.h"

/* What a reply description points to, besides the request's own state.
 * reply_build() resets only the pointers (the arrays the store owns): a
 * new one must be reset there and freed in reply_store_free(). */
struct reply_store {
    const char **acks;
    const char **delete_files;
    struct reply_abort *aborts;
    struct reply_app apps[LIM_JOBS_PER_REPLY];
    struct reply_app_version avs[LIM_JOBS_PER_REPLY];
    struct reply_av_file *av_files;
    struct reply_file *files;
    struct reply_file_ref *refs;
    struct reply_job jobs[LIM_JOBS_PER_REPLY];
    char out_names[LIM_JOBS_PER_REPLY][DB_NAME_MAX + 8];
    char signatures[LIM_JOBS_PER_REPLY][UA_SIG_HEX + 1];
    char no_work_messages[REPLY_MAX_RSC][512];
};

/*
 * Describe the reply to a handled request in r, with what it points to in
 * st.  Returns 0, or -1 when out of memory (then reply_store_free() and
 * answer with an error reply).
 */
int reply_build(struct sched_reply *r, struct reply_store *st, struct sched_ctx *ctx,
                const struct request_state *rs);
void reply_store_free(struct reply_store *st);

/* The reply to a handled request, built and written into out. */
void reply_write(struct buf *out, struct sched_ctx *ctx, const struct request_state *rs);

/* A reply that only carries a message and a request_delay. */
void reply_write_error(struct buf *out, const struct sched_ctx *ctx, const char *message,
                       int request_delay);

/* The reply while the administrator has stopped the project:
 * <project_is_down/>, a message and a request_delay. */
void reply_write_down(struct buf *out, const struct sched_ctx *ctx, int request_delay);

#endif
