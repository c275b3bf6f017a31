/*
 * estimate.c - runtime estimates and the per-host correction factor
 * (policy JC2), as declared in estimate.h.
 *
 * Every function returns a finite number for any input, NaN and infinities
 * included.  Where an input is unusable the result errs on the safe side
 * for the EDF check: a runtime or wall time becomes EST_RUNTIME_MAX (the
 * job is then refused rather than sent on a false promise), an
 * availability fraction becomes the documented default, and a correction
 * sample that cannot be computed is neutral (1.0) and an unusable sample
 * leaves the correction as it was.
 *
 * Pure code: no I/O, no globals.
 */
#include "estimate.h"

#include <math.h>

/* Clamp a finite x to [lo, hi]. */
static double clamp(double x, double lo, double hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

/* A correction factor clamped to its bounds; NaN gives 1.0 (no
 * correction), +-infinity gives the nearest bound. */
static double clamp_correction(double c)
{
    if (isnan(c))
        return 1.0;
    return clamp(c, EST_CORRECTION_MIN, EST_CORRECTION_MAX);
}

/*
 * fpops_est / flops * correction, in [0, EST_RUNTIME_MAX].  The correction
 * is clamped to [EST_CORRECTION_MIN, EST_CORRECTION_MAX] first.  A
 * non-finite input, flops <= 0 or fpops_est < 0 gives EST_RUNTIME_MAX, as
 * does a result beyond it (including overflow); fpops_est == 0 gives 0.
 */
double est_runtime(double rsc_fpops_est, double flops, double correction)
{
    double r;

    if (!isfinite(rsc_fpops_est) || !isfinite(flops) || !isfinite(correction) ||
        flops <= 0 || rsc_fpops_est < 0)
        return EST_RUNTIME_MAX;
    r = rsc_fpops_est / flops * clamp_correction(correction);
    if (!(r <= EST_RUNTIME_MAX))  /* also catches an overflow to infinity */
        return EST_RUNTIME_MAX;
    return r;
}

/*
 * runtime / avail, with avail clamped to [EST_AVAIL_MIN, 1] (a NaN avail
 * counts as EST_AVAIL_MIN, the longest estimate).  A non-finite or
 * negative runtime gives EST_RUNTIME_MAX; the result is capped at it.
 */
double est_wall(double runtime, double avail)
{
    double w;

    if (!isfinite(runtime) || runtime < 0)
        return EST_RUNTIME_MAX;
    avail = isnan(avail) ? EST_AVAIL_MIN : clamp(avail, EST_AVAIL_MIN, 1.0);
    w = runtime / avail;
    return w > EST_RUNTIME_MAX ? EST_RUNTIME_MAX : w;
}

/*
 * elapsed / (fpops_est / flops_at_send), clamped to the correction bounds.
 * Written as elapsed * flops / fpops_est, guarding each step.  If the
 * sample cannot be computed (elapsed non-finite or negative, fpops_est or
 * flops_at_send non-finite or <= 0) it is 1.0: "the estimate was right".
 * Callers should only sample jobs that completed successfully.
 */
double est_correction_sample(double elapsed, double rsc_fpops_est, double flops_at_send)
{
    double est;

    if (!isfinite(elapsed) || elapsed < 0 ||
        !isfinite(rsc_fpops_est) || rsc_fpops_est <= 0 ||
        !isfinite(flops_at_send) || flops_at_send <= 0)
        return 1.0;
    est = rsc_fpops_est / flops_at_send;  /* > 0, may round to 0 or be inf */
    if (est <= 0)                         /* underflow: estimate ~ 0 s */
        return elapsed > 0 ? EST_CORRECTION_MAX : EST_CORRECTION_MIN;
    if (!isfinite(est))
        return EST_CORRECTION_MIN;
    return clamp_correction(elapsed / est);
}

/*
 * JC2 update.  The sample is clamped to the correction bounds; a
 * non-finite sample is ignored (the old value is returned, clamped, or 1.0
 * when there is no history).  n <= 0, or an old value that is not finite,
 * means no history: the old value is then 1 (no correction), as the BOINC
 * client starts its duration correction factor, so that one job far
 * shorter than its estimate (batches whose job sizes vary) does not make
 * a host look many times faster.  An increase is taken at once and a
 * decrease moves EST_DECREASE_WEIGHT of the way to the sample.
 */
double est_correction_update(double old, long n, double sample)
{
    int history = n > 0 && isfinite(old);

    if (!isfinite(sample))
        return history ? clamp_correction(old) : 1.0;
    sample = clamp_correction(sample);
    old = history ? clamp_correction(old) : 1.0;
    if (sample > old)
        return sample;
    return clamp_correction(old + EST_DECREASE_WEIGHT * (sample - old));
}

/* One time_stats fraction: negative or NaN means unknown (1), otherwise
 * clamped to [EST_AVAIL_MIN, 1]. */
static double frac(double f)
{
    if (isnan(f) || f < 0)
        return 1.0;
    return clamp(f, EST_AVAIL_MIN, 1.0);
}

/* Product of the two fractions, each as frac() reads it; the product is
 * itself kept in [EST_AVAIL_MIN, 1] so that it is a valid avail. */
static double avail2(double a, double b)
{
    return clamp(frac(a) * frac(b), EST_AVAIL_MIN, 1.0);
}

double est_cpu_avail(double on_frac, double active_frac)
{
    return avail2(on_frac, active_frac);
}

double est_gpu_avail(double on_frac, double gpu_active_frac)
{
    return avail2(on_frac, gpu_active_frac);
}
