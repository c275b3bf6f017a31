/*
 * host_quota.c - a host's daily job quota (host_quota.h).
 */
#include "host_quota.h"

#define DAY 86400

int hq_per_cpu(int stored, int project)
{
    if (project <= 0)
        return 0;
    if (stored <= 0 || stored > project)
        return project;
    return stored;
}

int hq_after_bad(int stored, int project)
{
    int cur = hq_per_cpu(stored, project);
    if (cur == 0)
        return 0;
    cur /= 2;
    return cur < 1 ? 1 : cur;
}

int hq_after_valid(int stored, int project)
{
    int cur = hq_per_cpu(stored, project);
    if (cur == 0 || cur >= project / 2 + project % 2)
        return 0;           /* doubled, it reaches the project's */
    return cur * 2;
}

double hq_error_rate(double rate, int bad)
{
    if (!(rate >= 0))           /* NaN or negative: start over */
        rate = 0;
    if (rate > 1)
        rate = 1;
    return rate * 0.95 + (bad ? 0.05 : 0.0);
}

static int clamp_instances(int n)
{
    if (n < 0)
        return 0;
    return n > HQ_MAX_INSTANCES ? HQ_MAX_INSTANCES : n;
}

long hq_day_limit(int per_cpu, int ncpus, int ngpus, double gpu_multiplier)
{
    double n;
    if (per_cpu <= 0)
        return -1;
    ncpus = clamp_instances(ncpus);
    if (ncpus < 1)
        ncpus = 1;
    if (!(gpu_multiplier >= 0))
        gpu_multiplier = 0;
    n = (double)per_cpu * ncpus + (double)per_cpu * gpu_multiplier * clamp_instances(ngpus);
    if (n > 1e9)
        n = 1e9;
    return n < 1 ? 1 : (long)n;
}

int hq_sent_today(int nresults_today, time_t last_rpc, time_t now)
{
    if (nresults_today <= 0 || last_rpc <= 0 || last_rpc / DAY != now / DAY)
        return 0;
    return nresults_today;
}

int hq_delay_to_tomorrow(time_t now, int hostid)
{
    long left = DAY - (long)(now % DAY);
    long spread = hostid > 0 ? (long)(hostid % 3600) : 0;
    if (now < 0)
        left = DAY;
    return (int)(left + spread);
}
