/*
 * emu_client.h - one emulated BOINC client: its jobs and files, CPU
 * scheduling, work fetch, backoffs and runtime estimates, after seeds
 * 000, 001 and 002 and the policies of seed 003.  Pure: no I/O, no
 * clock; the caller passes the time and carries requests and replies
 * (emu_proto.h) between the client and the projects.
 *
 * Resources: 0 is the CPU (ncpus instances), 1 a GPU (0 or 1 instance).
 * Projects: 0 is the real locsched project, 1.. are stub projects
 * (emu_stub.h), each with a resource share.
 *
 * CPU scheduling (emu_client_schedule): every sched_period, and whenever
 * a job finishes or arrives.  CS1: weighted round-robin by short-term
 * debt (seed 001: the project with the largest anticipated debt gets the
 * next instance; within it the job that ran last, then a preempted one,
 * then the earliest deadline).  CS2: a round-robin simulation first finds
 * the jobs that would miss their deadline; those run earliest deadline
 * first, and the instances left go round-robin.
 *
 * Runtime estimates: a job's computing time is rsc_fpops_est / flops
 * (the app version's speed from the reply) times the project's duration
 * correction factor (JC2: an increase taken at once, a decrease smoothed,
 * the same rule as the server's; JC1: no correction).  A started job's
 * time left is F*A + (1-F)*B: F the fraction done, A the time left by
 * progress, B the static estimate minus the time run.
 *
 * Work fetch (emu_client_plan): a round-robin simulation per resource
 * gives the idle instances now, when an instance first goes idle and the
 * shortfall (idle computing time within buf_min + buf_add).  Work is
 * needed for a resource with an idle instance or one that goes idle
 * within buf_min.  The project asked is the one with the largest
 * long-term debt for the resource that is neither backed off for it nor
 * deferred (request_delay, RPC failures); a resource with an idle
 * instance is served first, the GPU before the CPU (seed 002).  The
 * request asks, for every resource it needs and the project may supply,
 * the shortfall in seconds and the idle instances.  Without work to ask,
 * a project with finished jobs is contacted to report them.
 *
 * Connection interval: when set, the client reaches the network only in
 * sessions of EMU_SESSION_SECS, the next one conn_interval after the
 * start of the last (a session starts when the client first wants an RPC).
 *
 * Backoffs: a resource asked for and not given is backed off for that
 * project, inc doubling from 10 minutes to a day; a job of the resource
 * in a reply clears it.  As client 7.20 (the default, EMU_FETCH_720):
 * for [inc/2, 3 inc/2); a job of the resource that finishes clears it
 * too; an RPC made to report (or on the project's request) asks for work
 * for resources below a full buffer even when backed off.  As seed 002
 * alone (EMU_FETCH_SEED): for [inc/2, inc].  A failed RPC defers all
 * contact with the project: random in [d/2, d], d = 1 minute doubling
 * per failure up to 4 hours (seed 000).  request_delay defers too.
 * next_rpc_delay in a reply makes the client call back that long after
 * even with nothing to ask or report (BOINC: "Requested by project").
 */
#ifndef LOCSCHED_EMU_CLIENT_H
#define LOCSCHED_EMU_CLIENT_H

#include "emu_host.h"
#include "emu_rng.h"

#define EMU_NRSC 2
#define EMU_MAX_PROJ 4
#define EMU_MAX_JOB_FILES 8
#define EMU_NAME 128
#define EMU_SESSION_SECS 3600.0

struct emu_client_params {
    double buf_min;                /* seconds of work to keep at least */
    double buf_add;                /* and up to this much more */
    double sched_period;           /* CPU scheduling period, seconds */
    int cs;                        /* 1: round-robin; 2: with EDF under deadline risk */
    int jc;                        /* 1: no duration correction; 2: DCF */
    double conn_interval;          /* seconds between network sessions (0: any time);
                                    * a session lasts EMU_SESSION_SECS */
    double poll;                   /* seconds between work-fetch checks at rest */
    int max_reports;               /* finished jobs reported per RPC at most (0: 64) */
    int fetch;                     /* resource backoffs: 1 as seed 002 (cleared only by a
                                    * job of the resource in a reply); 2 (or 0) as client
                                    * 7.20, see EMU_FETCH_720 */
    int ignore_aborts;             /* 1: the project's aborts are ignored (the emulator
                                    * before client 7.20's); 0: see EMU_ABORTS */
};

/*
 * EMU_ABORTS: client 7.20's handling of the project's aborts.
 * <result_abort> ends the job whether it ran or not;
 * <result_abort_if_not_started> ends it only if it never ran (no task
 * was ever started for it).  Either way it is reported at the next RPC
 * as aborted (state 6, exit status 202, EXIT_ABORTED_BY_PROJECT), and
 * what it computed is wasted.
 */

/*
 * Client 7.20's resource backoff, on top of seed 002's: a job that
 * finishes (its output uploaded) clears the backoff of its resource for
 * its project; an RPC made for another reason (reports due, the
 * project's call back) also asks for work for every resource whose
 * buffer is below its maximum, backed off or not ("piggyback"), unless a
 * project with more debt could be asked for it; a reply without work
 * backs a resource off only when it was not backed off already and the
 * RPC was not the project's call back; the backoff is a random time in
 * [inc/2, 3 inc/2).
 */
#define EMU_FETCH_SEED 1
#define EMU_FETCH_720 2

struct emu_job {
    char name[EMU_NAME];           /* result name */
    int proj, rsc;
    double est_fpops;              /* rsc_fpops_est of its workunit */
    double fpops;                  /* what it really takes */
    double flops_est;              /* speed the client assumes (app version flops) */
    double done;                   /* flops computed */
    double elapsed;                /* seconds run */
    double deadline;               /* report deadline, absolute */
    double received;
    double finished;               /* when it finished; 0 while not */
    int running, was_running;
    int late;                      /* finished after its deadline */
    int aborted;                   /* aborted at the project's request, never run: reported
                                    * as aborted (finished is when) */
    int files[EMU_MAX_JOB_FILES];  /* input files (ids of the caller's name table) */
    int nfiles;
};

struct emu_held_file {
    int file;
    double nbytes;
    int sticky;
};

struct emu_cproj {
    double share;
    double min_rpc;                /* no RPC before this time */
    int nfail;                     /* RPC failures in a row */
    double bo_until[EMU_NRSC];     /* resource backoff */
    double bo_inc[EMU_NRSC];
    int no_apps[EMU_NRSC];         /* the project said it has no app for it */
    double ltd[EMU_NRSC];          /* long-term debt, instance-seconds */
    double std_debt[EMU_NRSC];     /* short-term debt (CPU scheduling) */
    double work_since[EMU_NRSC];   /* instance-seconds run since the last scheduling */
    double dcf;
    long dcf_n;
    long long hostid, seqno;       /* the project's view of this host */
    double next_rpc;               /* an RPC is due then even with nothing to do (0: none) */
    int full_workload;             /* send <in_progress_results> */
    /* metrics */
    double used_flops;
    double idle_since;             /* seconds since it last ran (monotony) */
    double idle_sumsq;             /* integral of idle_since^2 over time on */
};

struct emu_client {
    struct emu_hw hw;
    struct emu_client_params par;
    struct emu_rng rng;
    int nproj;
    struct emu_cproj proj[EMU_MAX_PROJ];
    struct emu_job *jobs;
    int njobs, capjobs;
    struct emu_held_file *files;
    int nfiles, capfiles;
    double last_sched, last_check, session_start;
    int need_sched, need_check;
    /* metrics, in flops (instance speed x seconds) */
    double avail_flops, used_flops, idle_flops, wasted_flops;
    double gpu_avail_flops, gpu_idle_flops;   /* the GPU's part of the above */
    double on_time;
    long jobs_finished, jobs_late, jobs_aborted;
};

/* What one RPC asks of a project. */
struct emu_ask {
    int proj;
    double req_secs[EMU_NRSC];
    double req_instances[EMU_NRSC];
    double estimated_delay[EMU_NRSC];
    int nreport;                   /* finished jobs it reports: the first nreport of
                                    * the project's in the job list */
    int reason;                    /* why the RPC is made: EMU_RPC_* */
};

#define EMU_RPC_NEED_WORK 0        /* a resource needs work */
#define EMU_RPC_RESULTS_DUE 1      /* finished jobs to report */
#define EMU_RPC_PROJECT_REQ 2      /* the project's next_rpc_delay ran out */

/* A job in a reply, as the client takes it. */
struct emu_new_job {
    const char *name;
    int rsc;
    double est_fpops, fpops, flops_est, deadline;
    const char *const *file_names; /* input files, nfiles of them */
    const double *file_nbytes;
    const int *file_sticky;
    int nfiles;
};

/* What a reply says, in the client's terms. */
struct emu_answer {
    int ok;                        /* 0: the RPC failed (transport or server error) */
    double request_delay;          /* 0 if none */
    double next_rpc_delay;         /* call back after this long anyway (0: no) */
    const char *const *acks;       /* reported jobs the project acknowledged */
    int nacks;
    const struct emu_new_job *jobs;
    int njobs;
    const char *const *deletes;    /* sticky files to let go */
    int ndeletes;
    const char *const *aborts;     /* jobs the project aborts (EMU_ABORTS) */
    const int *abort_always;       /* per abort: 1 <result_abort>, 0 ..._if_not_started */
    int naborts;
    int no_apps[EMU_NRSC];         /* resources the project has no app for */
    int send_full_workload;
    long long hostid;              /* > 0: the project gave this host an id */
};

/* Callbacks into the caller's bookkeeping of files. */
struct emu_files_cb {
    int (*id)(void *ctx, const char *name);                  /* -1: out of memory */
    void (*downloaded)(void *ctx, int file, double nbytes);  /* a file was fetched */
    void *ctx;
};

/* Set up a client.  shares[0..nproj) are the projects' resource shares.
 * Returns 0, or -1 on bad arguments. */
int emu_client_init(struct emu_client *c, const struct emu_hw *hw,
                    const struct emu_client_params *par, const double *shares, int nproj,
                    uint64_t seed, double now);
void emu_client_free(struct emu_client *c);

/* Compute from now to now + dt (the host is on for all of it): jobs
 * progress, finish, and the metrics grow.  Reschedules as needed. */
void emu_client_advance(struct emu_client *c, double now, double dt);

/* Choose the jobs to run (CS1 or CS2) at time now. */
void emu_client_schedule(struct emu_client *c, double now);

/*
 * Should the client contact a project now?  Returns 1 and fills *ask, or
 * 0.  force_check runs the work-fetch simulation even at rest.
 */
int emu_client_plan(struct emu_client *c, double now, int force_check, struct emu_ask *ask);

/* The client's estimate of a job's computing time left, seconds. */
double emu_job_time_left(const struct emu_client *c, const struct emu_job *j);

/*
 * Take in a reply to *ask at time now: acknowledged reports leave, new
 * jobs arrive (files fetched through cb), deletions, backoffs, delays.
 * Returns 0, or -1 when out of memory (the client is still consistent).
 */
int emu_client_answer(struct emu_client *c, double now, const struct emu_ask *ask,
                      const struct emu_answer *a, const struct emu_files_cb *cb);

/* The host leaves for good (or the run ends with now past deadlines):
 * work of unfinished jobs past their deadline, or of all of them when
 * departing, counts as wasted.  Returns the results it abandons. */
int emu_client_finish(struct emu_client *c, double now, int departing);

/* "Reset project" on project proj: the client forgets every job of it
 * (the work done on them is wasted) and every file no other job uses,
 * and keeps its identity (host id, RPC sequence number).  Returns the
 * jobs forgotten. */
int emu_client_reset_project(struct emu_client *c, int proj);

/* Is file id held with the sticky flag? */
int emu_client_holds(const struct emu_client *c, int file);

#endif
