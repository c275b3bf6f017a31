/*
 * emu_rng.c - seeded random numbers and distributions (emu_rng.h).
 */
#include "emu_rng.h"

#include <math.h>

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void emu_rng_seed(struct emu_rng *r, uint64_t seed)
{
    r->s = seed;
}

uint64_t emu_rng_next(struct emu_rng *r)
{
    r->s += 0x9e3779b97f4a7c15ULL;
    return mix(r->s);
}

/* 53 random bits as a double in (0, 1). */
static double unit(uint64_t x)
{
    return ((double)(x >> 11) + 0.5) / 9007199254740992.0;
}

double emu_uniform(struct emu_rng *r)
{
    return unit(emu_rng_next(r));
}

double emu_uniform_in(struct emu_rng *r, double lo, double hi)
{
    return lo + (hi - lo) * emu_uniform(r);
}

int emu_int_in(struct emu_rng *r, int lo, int hi)
{
    int v;
    if (hi <= lo)
        return lo;
    v = lo + (int)(emu_uniform(r) * (double)(hi - lo + 1));
    return v > hi ? hi : v;
}

double emu_exponential(struct emu_rng *r, double mean)
{
    if (mean <= 0)
        return 0;
    return -mean * log(emu_uniform(r));
}

static double box_muller(double u1, double u2)
{
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

double emu_normal(struct emu_rng *r)
{
    double u1 = emu_uniform(r);
    return box_muller(u1, emu_uniform(r));
}

double emu_lognormal_factor(double z, double sd)
{
    double s2;
    if (!(sd > 0))
        return 1.0;
    /* X = exp(mu + s z): E[X] = 1 and Var[X] = sd^2 when
     * s^2 = ln(1 + sd^2) and mu = -s^2 / 2 */
    s2 = log1p(sd * sd);
    return exp(-s2 / 2 + sqrt(s2) * z);
}

uint64_t emu_hash(const char *text, uint64_t salt)
{
    uint64_t h = 1469598103934665603ULL ^ mix(salt);
    for (; *text; text++) {
        h ^= (unsigned char)*text;
        h *= 1099511628211ULL;
    }
    return mix(h);
}

double emu_normal_of(uint64_t key, uint64_t salt)
{
    uint64_t a = mix(key ^ mix(salt + 0x51ed2701f3a5c7b9ULL));
    uint64_t b = mix(a + 0x9e3779b97f4a7c15ULL);
    return box_muller(unit(a), unit(b));
}
