/*
 * emu_rng.h - the emulator's random numbers: a small seeded generator
 * (splitmix64), the distributions the host and job models draw from, and
 * values derived from a name, so that both replicas of a job, and the
 * same job in two runs that compare policies, get the same size.  Pure.
 */
#ifndef LOCSCHED_EMU_RNG_H
#define LOCSCHED_EMU_RNG_H

#include <stdint.h>

struct emu_rng {
    uint64_t s;
};

void emu_rng_seed(struct emu_rng *r, uint64_t seed);
uint64_t emu_rng_next(struct emu_rng *r);

/* Uniform in (0, 1): never exactly 0 or 1. */
double emu_uniform(struct emu_rng *r);

/* Uniform in [lo, hi). */
double emu_uniform_in(struct emu_rng *r, double lo, double hi);

/* Whole number in [lo, hi]. */
int emu_int_in(struct emu_rng *r, int lo, int hi);

/* Exponential with the given mean (mean <= 0 gives 0). */
double emu_exponential(struct emu_rng *r, double mean);

/* Standard normal (Box-Muller). */
double emu_normal(struct emu_rng *r);

/*
 * A positive factor with mean 1 and standard deviation sd: log-normal,
 * from the standard normal z (so callers may derive z from a name).
 * sd <= 0 gives exactly 1.
 */
double emu_lognormal_factor(double z, double sd);

/* A 64-bit hash of text and a salt (FNV-1a, then mixed). */
uint64_t emu_hash(const char *text, uint64_t salt);

/* A standard normal value determined by (key, salt): the same key and
 * salt always give the same value. */
double emu_normal_of(uint64_t key, uint64_t salt);

#endif
