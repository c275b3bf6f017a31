/*
 * emu_host.h - the hardware and availability of emulated hosts.
 *
 * A population draws each host's CPUs (a count in [cpus_min, cpus_max]),
 * CPU speed (log-uniform between the slowest and spread times it, so a
 * spread of 10 gives the 10x range of a volunteer population), an
 * optional GPU, and its on_frac.  Availability alternates on and off
 * periods, each exponentially distributed, with means on_mean and
 * on_mean * (1 - on_frac) / on_frac, so that the long-run fraction of
 * time on is on_frac.  Pure.
 */
#ifndef LOCSCHED_EMU_HOST_H
#define LOCSCHED_EMU_HOST_H

#include "emu_rng.h"

struct emu_pop_params {
    int cpus_min, cpus_max;
    double cpu_gflops_min;         /* the slowest CPU, GFLOPS per core */
    double cpu_spread;             /* fastest / slowest, >= 1 */
    double gpu_frac;               /* fraction of hosts with one GPU */
    double gpu_gflops_min;         /* slowest GPU peak, GFLOPS */
    double gpu_spread;
    double gpu_eff;                /* fraction of the peak that jobs achieve */
    double on_frac_min, on_frac_max;
    double on_mean;                /* mean length of an on period, seconds */
};

struct emu_hw {
    int ncpus;
    double cpu_flops;              /* per core, what the host reports as p_fpops */
    int ngpus;
    double gpu_peak;               /* per GPU, reported peak_flops */
    double gpu_eff;
    double on_frac;
};

/* Draw one host's hardware. */
void emu_hw_draw(struct emu_hw *hw, const struct emu_pop_params *p, struct emu_rng *r);

/* Speed of one instance of resource rsc (0 CPU, 1 GPU) in flops. */
double emu_hw_speed(const struct emu_hw *hw, int rsc);

/* Instances of resource rsc. */
int emu_hw_ninstances(const struct emu_hw *hw, int rsc);

struct emu_avail {
    int on;
    double next;                   /* time of the next change */
    double on_mean, off_mean;      /* off_mean 0: always on */
};

/* Start the process at time now, on with probability on_frac. */
void emu_avail_init(struct emu_avail *a, double on_frac, double on_mean, double now,
                    struct emu_rng *r);

/* Bring the process up to time now; returns 1 if it changed state. */
int emu_avail_update(struct emu_avail *a, double now, struct emu_rng *r);

#endif
