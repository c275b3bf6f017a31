/*
 * lost_jobs.h - "resend lost results" and result aborts, inside the
 * request's transaction (see doc/locality.md, "Lost jobs and aborts").
 *
 * When a request carries <other_results>, the jobs the server has in
 * progress on the host are compared with the jobs the client holds and
 * reports (sched/policy/lost_results.h).  A lost job whose workunit is
 * still needed is sent again in this reply, with its name, workunit and
 * report_deadline, if it still meets its deadline on this host (the EDF
 * check of every job) and the reply has room, and no replacement was made
 * for it already (a host presumed gone); otherwise it is marked lost
 * (OVER, CLIENT_ERROR) and its workunit is flagged for the transitioner,
 * which makes a new replica at once.  Jobs the client holds that are no
 * longer needed get a result abort in the reply.  Cost: none for a host
 * with nothing in progress; else one indexed SELECT, plus one UPDATE when
 * a job was lost.
 */
#ifndef LOCSCHED_LOST_JOBS_H
#define LOCSCHED_LOST_JOBS_H

#include "handler.h"

/*
 * Run after the reports are handled and the resources set up, before new
 * work is chosen: fills rs->aborts, appends resent jobs to rs->jobs (with
 * resent = 1) and counts rs->nresent and rs->nlost.  Returns DB_OK or the
 * database's status (DB_RETRY when a row changed under it).
 */
int lost_jobs_handle(struct sched_ctx *ctx, struct request_state *rs);

#endif
