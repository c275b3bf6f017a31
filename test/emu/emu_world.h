/*
 * emu_world.h - one emulation run: a host population working for the
 * real locsched project (one batch) and optionally stub projects, in
 * simulated time, against the real scheduler, daemons and database
 * (emu_server.h).
 *
 * The loop advances the clock in steps of dt seconds.  In each step,
 * hosts come and go (churn: lifetimes exponential with mean life_days,
 * arrivals a Poisson process that keeps nhosts on average), and every
 * host that is on, in a new random order, first makes the RPCs its
 * client wants (at most 4, 10 seconds apart, so that a short
 * request_delay does not end its fetching), then computes until the next
 * step.  The daemons run every wg_period, tr_period and ld_period
 * seconds of simulated time.  A run ends after days, or when the batch
 * is complete if until_done is set.
 *
 * At the end the run's batch is aborted and retired if it is not complete,
 * so that it is not served to anyone after the run.
 *
 * Ideal makespan: the flops of every replica the batch needs (job sizes
 * as drawn, times the replication) divided by the mean speed of the
 * hosts while on, over the makespan (the sum of ncpus * CPU speed + GPU
 * speed of the hosts on, averaged over time).
 */
#ifndef LOCSCHED_EMU_WORLD_H
#define LOCSCHED_EMU_WORLD_H

#include <stdint.h>

#include "emu_client.h"
#include "emu_host.h"
#include "emu_server.h"
#include "emu_stub.h"

/* Idleness is also split by the time it falls in: the batch's first
 * tenth of its makespan (hosts still getting their first jobs) and its
 * last fifth (the tail); the rest is the middle. */
#define EMU_HEAD_SHARE 0.1
#define EMU_TAIL_SHARE 0.2

struct emu_scenario {
    /* population */
    int nhosts, nusers;
    struct emu_pop_params pop;
    double life_days;              /* churn: mean lifetime; 0 = none */
    double lose_queue_per_day;     /* chance per host and day that its client forgets
                                    * all its jobs of the project ("reset project") */
    /* clients */
    struct emu_client_params client;
    double error_f;                /* jobs take f times their estimate */
    double rpc_fail;               /* chance that an RPC fails in transport */
    /* the real project and its batch */
    double share;
    int locality;                  /* 1: locality batch; 0: plain */
    int file_pref;                 /* locality_file_preference */
    int positions;                 /* locality_positions */
    int ws2;                       /* sched_policy ws2 (else ws1) */
    int njobs;                     /* 0: enough for the run */
    int nfiles, files_per_job;
    double file_bytes;
    double fpops_est, size_sd;
    int delay_bound, replication, min_quorum;
    int team_min, team_max;
    int ncursors;                  /* 0: the documented rule */
    const char *extra_config;      /* more "key = value" lines, or NULL */
    /* other projects */
    int nstubs;
    struct emu_stub_params stubs[EMU_MAX_PROJ - 1];
    /* the run */
    double days, dt;
    int until_done;
    double wg_period, tr_period, ld_period;
    uint64_t seed;
    int verbose;
};

/* Defaults: 50 hosts, 1-4 CPUs at 1-10 GFLOPS, no GPU, on_frac 0.8,
 * buffer 0.1 + 0.25 days, CS2, JC2, WS2, a plain batch, 3 days. */
void emu_scenario_defaults(struct emu_scenario *sc);

struct emu_outcome {
    /* the paper's metrics */
    double idleness, waste, share_violation, monotony;
    double cpu_idleness, gpu_idleness;       /* idleness of each kind of resource */
    double idle_head, idle_tail;   /* the part of idleness in the batch's first
                                    * EMU_HEAD_SHARE and last EMU_TAIL_SHARE of
                                    * its makespan (0 when not done) */
    double gpu_flops_frac;                   /* GPUs' part of the flops available */
    long no_work_replies;                    /* real-project replies to a work request without a job */
    /* locality */
    long files_used;               /* distinct input files sent */
    double hosts_per_file;
    double range_bound;            /* hosts per file if each host had been sent one
                                    * contiguous range of as many jobs (emu_metrics.h) */
    double bytes_per_job;
    double bytes_total;
    /* the batch */
    int batch_id;
    int batch_done;
    double makespan, ideal, makespan_ratio;   /* seconds; 0 when not done */
    double work_flops;             /* flops of every replica the batch needs */
    double computed_flops;         /* flops the hosts computed for the real project */
    double lost_flops;             /* of which lost with departing hosts */
    double extra_flops;            /* computed - lost - needed (replicas the batch did not
                                    * need: backups, late originals); 0 when not done */
    /* traffic */
    long rpcs, rpcs_failed, rpcs_stub;
    long reports_acked;            /* results of the real project acknowledged */
    double rpcs_per_job;           /* real-project RPCs per job (workunit) done */
    long results_received;
    long deletes;                  /* <delete_file_info> received */
    long double_sends;             /* a result name received twice */
    long abandoned;                /* results lost with departing hosts */
    long queue_losses;             /* "reset project" events (lose_queue_per_day) */
    long jobs_forgotten;           /* jobs the clients forgot in them */
    long resends_received;         /* a result name received again by the same host */
    long hosts_total, departures;
    long jobs_finished, jobs_late, jobs_aborted;
    struct emu_batch_db db;
    double sim_days, wall_secs, handler_secs, daemon_secs;
    double daemon_secs_each[EMU_NDAEMONS];
    long daemon_passes;
    unsigned long statements;
};

/* Run a scenario.  Returns 0, or -1 with a reason in err. */
int emu_run(const struct emu_scenario *sc, struct emu_outcome *out, char *err, size_t errlen);

/* Print a one-run report (human-readable). */
void emu_outcome_print(const struct emu_scenario *sc, const struct emu_outcome *o);

#endif
