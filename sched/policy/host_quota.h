/*
 * host_quota.h - a host's daily job quota, as BOINC administrators know
 * it (config key daily_result_quota, per CPU; gpu_multiplier per GPU):
 * pure arithmetic, used by the validator (a result judged valid or
 * invalid), the scheduler (a job the client reports as an error, the
 * count of jobs sent today) and the tests.
 *
 * The host row keeps BOINC's columns: max_results_day (the host's own
 * quota per CPU; 0 means the project's daily_result_quota, so that
 * raising the setting reaches every host in good standing),
 * nresults_today (jobs sent on the UTC day of the host's last request,
 * host.rpc_time), consecutive_valid and error_rate.
 *
 * The rules: an invalid result or a client error halves the host's
 * quota (at least 1 per CPU), a valid result doubles it back, up to the
 * project's (then stored as 0 again).  A host returning garbage thus
 * falls from the project's quota to 1 job per CPU a day within a few
 * results, and a repaired host regains it within a few days.
 */
#ifndef LOCSCHED_HOST_QUOTA_H
#define LOCSCHED_HOST_QUOTA_H

#include <time.h>

/* GPUs and CPUs counted for the quota are capped at this many. */
#define HQ_MAX_INSTANCES 256

/* The host's quota per CPU: stored 0 (or above the project's) is the
 * project's.  0 when the project has no quota (project <= 0). */
int hq_per_cpu(int stored, int project);

/* The stored quota after a bad result (invalid, or a client error):
 * half the current one, at least 1.  Unchanged (0) when the project has
 * no quota. */
int hq_after_bad(int stored, int project);

/* The stored quota after a valid result: twice the current one; 0 (the
 * project's) once it reaches the project's. */
int hq_after_valid(int stored, int project);

/* The error rate after a result: a moving average of bad results (0 or
 * 1, weight 1/20), kept in [0, 1]. */
double hq_error_rate(double rate, int bad);

/* Jobs the host may get per day: per_cpu times the CPUs plus per_cpu
 * times gpu_multiplier per GPU (each count capped at HQ_MAX_INSTANCES, at
 * least one CPU).  -1 (no limit) when per_cpu is 0. */
long hq_day_limit(int per_cpu, int ncpus, int ngpus, double gpu_multiplier);

/* Jobs already sent today: the stored count if the host's last request
 * (last_rpc) was on the same UTC day as now, else 0. */
int hq_sent_today(int nresults_today, time_t last_rpc, time_t now);

/* Seconds a host whose quota is used up should wait: to the next UTC
 * day, plus a spread over its first hour by host id so that the hosts do
 * not all come back at midnight. */
int hq_delay_to_tomorrow(time_t now, int hostid);

#endif
