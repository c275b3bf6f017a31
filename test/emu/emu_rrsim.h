/*
 * emu_rrsim.h - the client's weighted round-robin simulation of one
 * processing resource (seeds 001 and 002): when will each queued job
 * finish if the resource is shared among projects by resource share, and
 * how much of the resource will sit idle within the work-buffer period.
 *
 * The model: the resource has ninstances instances that compute a
 * fraction avail of wall-clock time.  The projects that still have jobs
 * split the instances in proportion to their shares (a project never
 * gets more instances than it has jobs; the surplus goes to the others).
 * Within a project, jobs run in deadline order: the first ones get a
 * whole instance each, the next one the fraction left.  Times are
 * seconds from now.  Pure; O(n * (projects + instances)) for n jobs.
 */
#ifndef LOCSCHED_EMU_RRSIM_H
#define LOCSCHED_EMU_RRSIM_H

#define EMU_RR_MAX_PROJ 8

struct emu_rr_job {
    int proj;                      /* 0 .. nproj-1 */
    double remaining;              /* estimated computing seconds left on one instance */
    double deadline;               /* seconds from now (may be negative) */
    double finish;                 /* out: projected finish, seconds from now */
    int misses;                    /* out: finish > deadline */
};

struct emu_rr_in {
    int ninstances;
    double avail;                  /* (0, 1] */
    double share[EMU_RR_MAX_PROJ];
    int nproj;
    double window;                 /* the buffer period: shortfall counts up to it */
};

struct emu_rr_out {
    double shortfall;              /* computing instance-seconds left idle in the window */
    int nidle;                     /* instances idle now */
    double saturated;              /* seconds until an instance first goes idle */
    int nmiss;                     /* jobs projected to miss their deadline */
};

/* Simulate; fills each job's finish and misses, and *out.  Returns 0, or
 * -1 when out of memory or given bad arguments (out is then zeroed). */
int emu_rrsim(const struct emu_rr_in *in, struct emu_rr_job *jobs, int njobs,
              struct emu_rr_out *out);

#endif
