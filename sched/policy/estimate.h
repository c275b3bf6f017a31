/*
 * estimate.h - runtime estimates and their per-host correction.
 *
 * Pure functions.  A job's computing time on a host is
 *     rsc_fpops_est / flops * correction
 * where flops is the speed of the resource instance the job runs on and
 * correction is learned from the host's reported elapsed times for that
 * app version (policy JC2 of the WS2 paper: an increase is taken at once,
 * a decrease is smoothed exponentially).  Wall-clock time divides the
 * computing time by the fraction of time the resource is available.
 */
#ifndef LOCSCHED_ESTIMATE_H
#define LOCSCHED_ESTIMATE_H

/* Weight of a new sample when the correction decreases. */
#define EST_DECREASE_WEIGHT 0.1
/* Bounds of the correction factor, so one odd report cannot wreck it. */
#define EST_CORRECTION_MIN 0.01
#define EST_CORRECTION_MAX 100.0
/* Lower bound for availability fractions (a host that reports 0 would
 * otherwise make every job infinitely long). */
#define EST_AVAIL_MIN 0.01
/* The "large but finite" time (seconds, about 31.7 years) returned for
 * unusable inputs; it also caps every estimate.  Any job this long misses
 * every deadline, and 2000 of them still add up exactly in a double. */
#define EST_RUNTIME_MAX 1e9

/* Computing seconds for a job: fpops_est / flops * correction.
 * flops <= 0 or non-finite inputs give a large but finite value. */
double est_runtime(double rsc_fpops_est, double flops, double correction);

/* Wall-clock seconds from computing seconds and the availability
 * fraction (on_frac * active_frac for the CPU, on_frac * gpu_active_frac
 * for a GPU).  avail is clamped to [EST_AVAIL_MIN, 1]. */
double est_wall(double runtime, double avail);

/* The correction sample of one reported job:
 * elapsed / (rsc_fpops_est / flops_at_send), clamped. */
double est_correction_sample(double elapsed, double rsc_fpops_est, double flops_at_send);

/* New correction from the old one (n samples so far) and a new sample:
 * n == 0 -> sample; sample > old -> sample; else old + w * (sample - old).
 * Result clamped to [EST_CORRECTION_MIN, EST_CORRECTION_MAX]. */
double est_correction_update(double old, long n, double sample);

/* Availability for the CPU and for GPUs, from time_stats fractions
 * (each clamped to [EST_AVAIL_MIN, 1]; negative means unknown -> 1). */
double est_cpu_avail(double on_frac, double active_frac);
double est_gpu_avail(double on_frac, double gpu_active_frac);

#endif /* LOCSCHED_ESTIMATE_H */
