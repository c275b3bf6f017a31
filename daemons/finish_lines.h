/*
 * finish_lines.h - the transitioner's step for the batches' finish lines
 * (sched/policy/finish_line.h): every few minutes, each active batch's
 * projected end and a fast host's speed are computed and stored in its
 * row, where the schedulers read them with the active batches.
 */
#ifndef LOCSCHED_FINISH_LINES_H
#define LOCSCHED_FINISH_LINES_H

#include "daemon.h"

/* Seconds between two steps. */
#define FINISH_LINES_INTERVAL 300
/* Hosts seen in the last this many seconds count as active. */
#define FINISH_ACTIVE_HOSTS_SECS 86400
/* Active hosts read for the speed quantile, at most (the newest). */
#define FINISH_MAX_HOSTS 10000

/* One step.  Returns the batches whose finish line changed, or a negative
 * db_status after logging. */
long finish_lines_step(struct daemon *d);

#endif
