/*
 * reply.h - writing <scheduler_reply> documents that the BOINC client
 * 7.20 accepts (see doc/protocol.md for the elements and why each is sent).
 */
#ifndef LOCSCHED_REPLY_H
#define LOCSCHED_REPLY_H

#include "buf.h"
#include "handler.h"

/* The reply to a handled request: host id, acks, jobs, messages. */
void reply_write(struct buf *out, struct sched_ctx *ctx, const struct request_state *rs);

/* A reply that only carries a message and a request_delay. */
void reply_write_error(struct buf *out, const struct sched_ctx *ctx, const char *message,
                       int request_delay);

#endif
