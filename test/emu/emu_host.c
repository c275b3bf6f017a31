/*
 * emu_host.c - host hardware and availability (emu_host.h).
 */
#include "emu_host.h"

#include <math.h>

static double log_uniform(struct emu_rng *r, double lo, double spread)
{
    if (spread <= 1)
        return lo;
    return lo * exp(emu_uniform(r) * log(spread));
}

void emu_hw_draw(struct emu_hw *hw, const struct emu_pop_params *p, struct emu_rng *r)
{
    hw->ncpus = emu_int_in(r, p->cpus_min, p->cpus_max);
    if (hw->ncpus < 1)
        hw->ncpus = 1;
    hw->cpu_flops = 1e9 * log_uniform(r, p->cpu_gflops_min, p->cpu_spread);
    hw->ngpus = p->gpu_frac > 0 && emu_uniform(r) < p->gpu_frac ? 1 : 0;
    hw->gpu_peak = hw->ngpus ? 1e9 * log_uniform(r, p->gpu_gflops_min, p->gpu_spread) : 0;
    hw->gpu_eff = p->gpu_eff > 0 ? p->gpu_eff : 1;
    hw->on_frac = p->on_frac_max > p->on_frac_min ? emu_uniform_in(r, p->on_frac_min, p->on_frac_max)
                                                  : p->on_frac_min;
    if (hw->on_frac > 1)
        hw->on_frac = 1;
    if (hw->on_frac < 0.01)
        hw->on_frac = 0.01;
}

double emu_hw_speed(const struct emu_hw *hw, int rsc)
{
    return rsc == 0 ? hw->cpu_flops : hw->gpu_peak * hw->gpu_eff;
}

int emu_hw_ninstances(const struct emu_hw *hw, int rsc)
{
    return rsc == 0 ? hw->ncpus : hw->ngpus;
}

void emu_avail_init(struct emu_avail *a, double on_frac, double on_mean, double now,
                    struct emu_rng *r)
{
    a->on_mean = on_mean > 0 ? on_mean : 3600;
    a->off_mean = on_frac >= 1 ? 0 : a->on_mean * (1 - on_frac) / on_frac;
    if (a->off_mean <= 0) {
        a->on = 1;
        a->next = INFINITY;
        return;
    }
    /* both periods are memoryless: the time left in the first one has the
     * same distribution as a whole period */
    a->on = emu_uniform(r) < on_frac;
    a->next = now + emu_exponential(r, a->on ? a->on_mean : a->off_mean);
}

int emu_avail_update(struct emu_avail *a, double now, struct emu_rng *r)
{
    int was = a->on;
    while (a->next <= now) {
        a->on = !a->on;
        a->next += emu_exponential(r, a->on ? a->on_mean : a->off_mean);
    }
    return a->on != was;
}
