/*
 * emu_churn.c - the churn experiment (emu_exp.h): how fast a batch
 * finishes when hosts leave for good, for host lifetimes, replication
 * levels and both ways of dispatching, each point over several seeds.
 */
#include "emu_exp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_plot.h"

#define MAX_POINTS 32
#define MAX_SEEDS 1000
#define CHURN_JOBS 960             /* jobs at replication 1; N / R at replication R */

void emu_exp_churn_defaults(struct emu_cli *cli)
{
    struct emu_scenario *sc = &cli->sc;
    sc->nhosts = 60;
    sc->nusers = 20;               /* 3 hosts per volunteer: the user rule matters */
    sc->pop.cpus_min = 1;
    sc->pop.cpus_max = 2;          /* about 11 jobs per core at replication 1 */
    sc->pop.on_frac_min = 0.6;
    sc->pop.on_frac_max = 1.0;
    sc->njobs = CHURN_JOBS;
    sc->files_per_job = 2;
    sc->file_bytes = 20e6;
    sc->fpops_est = 4e13;          /* 1.1 to 11 hours on one core */
    sc->size_sd = 0.2;
    sc->delay_bound = 4 * 86400;
    sc->team_min = 5;
    sc->team_max = 10;
    sc->days = 20;                 /* a run still going then counts as infinite */
    sc->until_done = 1;
    sc->wg_period = 600;
    sc->tr_period = 600;
    sc->ld_period = 3600;
    cli->seeds = 5;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of v[0..n) (sorts v); NAN when n is 0. */
static double median(double *v, int n)
{
    if (n == 0)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double worst(const double *v, int n)
{
    double m = n ? v[0] : NAN;
    int i;
    for (i = 1; i < n; i++)
        if (v[i] > m)
            m = v[i];
    return m;
}

struct point_figures {
    int runs, done;
    double ratio_med, ratio_max;   /* INFINITY when a run did not finish */
    double extra_med, extra_max;   /* extra flops / needed, finished runs */
    double idle_med, hpf_med, lost_med;
    double hpf_mean, bound_mean;   /* hosts per file and the one-range bound, means */
    double wall;
};

/* One point (lifetime, replication, dispatch), over the seeds. */
static int run_point(const struct emu_cli *cli, double life, int rep, int locality,
                     FILE *runs, struct point_figures *f)
{
    double ratio[MAX_SEEDS], extra[MAX_SEEDS], idle[MAX_SEEDS], hpf[MAX_SEEDS], lost[MAX_SEEDS];
    int s, nextra = 0, failed = 0;

    memset(f, 0, sizeof *f);
    for (s = 0; s < cli->seeds; s++) {
        struct emu_scenario sc = cli->sc;
        struct emu_outcome o;
        char err[1024];
        sc.life_days = life;
        sc.replication = rep;
        sc.min_quorum = rep;
        sc.locality = locality;
        sc.njobs = cli->sc.njobs / rep > 0 ? cli->sc.njobs / rep : 1;
        if (cli->sc.nfiles <= 0)
            sc.nfiles = sc.njobs / 10 + sc.files_per_job;
        sc.seed = cli->sc.seed + (uint64_t)s;
        if (emu_run(&sc, &o, err, sizeof err) < 0) {
            fprintf(stderr, "emu: churn life %g, replication %d, %s, seed %llu: %s\n", life,
                    rep, locality ? "locality" : "plain", (unsigned long long)sc.seed, err);
            failed = 1;
            continue;
        }
        if (sc.verbose)
            emu_outcome_print(&sc, &o);
        ratio[f->runs] = o.batch_done ? o.makespan_ratio : INFINITY;
        idle[f->runs] = o.idleness;
        hpf[f->runs] = o.hosts_per_file;
        f->hpf_mean += o.hosts_per_file;
        f->bound_mean += o.range_bound;
        lost[f->runs] = o.work_flops > 0 ? o.lost_flops / o.work_flops : 0;
        if (o.batch_done && o.work_flops > 0)
            /* rounding leaves a few flops either side of 0 */
            extra[nextra++] = fabs(o.extra_flops) < 1e-9 * o.work_flops ? 0
                                                                        : o.extra_flops / o.work_flops;
        f->runs++;
        f->done += o.batch_done;
        f->wall += o.wall_secs;
        fprintf(runs, "%g %d %s %llu %d %.4f %.3f %.3f %.5f %.5f %.3f %.5f %ld %ld %.1f %.5f %.5f "
                      "%.3f\n", life,
                rep, locality ? "locality" : "plain", (unsigned long long)sc.seed, o.batch_done,
                o.batch_done ? o.makespan_ratio : -1, o.makespan / 3600, o.ideal / 3600,
                o.batch_done ? o.extra_flops / o.work_flops : -1, o.idleness, o.hosts_per_file,
                o.work_flops > 0 ? o.lost_flops / o.work_flops : 0, o.departures,
                o.no_work_replies, o.wall_secs, o.idle_head, o.idle_tail, o.range_bound);
        fflush(runs);
    }
    f->ratio_max = worst(ratio, f->runs);
    f->ratio_med = median(ratio, f->runs);
    f->extra_max = worst(extra, nextra);
    f->extra_med = median(extra, nextra);
    f->idle_med = median(idle, f->runs);
    f->hpf_med = median(hpf, f->runs);
    f->lost_med = median(lost, f->runs);
    if (f->runs > 0) {
        f->hpf_mean /= f->runs;
        f->bound_mean /= f->runs;
    }
    return failed;
}

int emu_exp_churn(struct emu_cli *cli)
{
    double lives[MAX_POINTS], reps[MAX_POINTS];
    int nlives, nreps, d, i, k, failed = 0, nblocks = 0, first_block = 1;
    int do_loc, do_plain;
    const char *name, *dispatch;
    char script[8192], path[64];
    size_t used;
    FILE *dat, *runs;

    if (cli->quick) {
        if (cli->sc.nhosts > 30)
            cli->sc.nhosts = 30;
        cli->sc.nusers = cli->sc.nhosts / 3 + 1;
        if (cli->sc.njobs > 480)
            cli->sc.njobs = 480;
        if (cli->seeds > 2)
            cli->seeds = 2;
    }
    nlives = emu_parse_list(cli->points ? cli->points : cli->quick ? "4" : "4,8,16", lives,
                            MAX_POINTS);
    nreps = emu_parse_list(cli->reps ? cli->reps : cli->quick ? "2" : "1,2,3", reps, MAX_POINTS);
    if (nlives <= 0 || nreps <= 0) {
        fprintf(stderr, "emu: --points (lifetimes in days, 0: no churn) and --reps want "
                        "comma-separated lists of numbers\n");
        return 2;
    }
    for (i = 0; i < nreps; i++)
        if (reps[i] < 1 || reps[i] > 10 || reps[i] != floor(reps[i])) {
            fprintf(stderr, "emu: --reps: replication %g is not a whole number in 1..10\n",
                    reps[i]);
            return 2;
        }
    dispatch = cli->dispatch ? cli->dispatch : "both";
    do_loc = strcmp(dispatch, "plain") != 0;
    do_plain = strcmp(dispatch, "locality") != 0;
    name = cli->name ? cli->name : "churn";
    dat = emu_data_open(cli->out_dir, name);
    snprintf(path, sizeof path, "%s-runs", name);
    runs = dat ? emu_data_open(cli->out_dir, path) : NULL;
    if (!dat || !runs) {
        if (dat)
            fclose(dat);
        return 1;
    }
    printf("Churn: %d hosts of %d users on average, a batch of %d jobs / replication (%.3g "
           "flops each, size sd %.2f), quorum = replication, deadline %.1f days, %d seeds "
           "per point from %llu\n",
           cli->sc.nhosts, cli->sc.nusers, cli->sc.njobs, cli->sc.fpops_est, cli->sc.size_sd,
           cli->sc.delay_bound / 86400.0, cli->seeds, (unsigned long long)cli->sc.seed);
    fprintf(runs, "# churn experiment, one line per run\n# life_days replication dispatch seed "
                  "done ratio makespan_h ideal_h extra_frac idleness hosts_per_file lost_frac "
                  "departures no_work_replies wall_s idle_head idle_tail range_bound\n"
                  "# (idle_head, idle_tail: the part of idleness in the batch's first 10%% and "
                  "last 20%% of its makespan; range_bound: hosts per file if each host had been "
                  "sent one contiguous range of as many jobs)\n");
    fprintf(dat, "# churn experiment, one line per point (ratio: makespan / ideal; extra: "
                 "flops computed beyond the batch's needs, not counting work lost with "
                 "departing hosts, / needed)\n# label life_days replication dispatch runs done "
                 "ratio_median ratio_worst extra_median extra_worst idle_median "
                 "hosts_per_file_median lost_median hosts_per_file_mean range_bound_mean\n");
    printf("%-5s %3s %-8s %5s | %7s %7s | %7s %7s | %6s %9s %6s %7s | %6s\n", "life", "R",
           "dispatch", "done", "ratio", "worst", "extra%", "worst%", "idle", "hosts/file",
           "bound", "lost%", "wall s");
    for (d = 0; d < 2; d++) {
        int locality = d == 0;
        if ((locality && !do_loc) || (!locality && !do_plain))
            continue;
        for (k = 0; k < nreps; k++) {
            if (!first_block)
                fprintf(dat, "\n\n");
            first_block = 0;
            nblocks++;
            for (i = 0; i < nlives; i++) {
                struct point_figures f;
                char label[32];
                failed |= run_point(cli, lives[i], (int)reps[k], locality, runs, &f);
                if (lives[i] > 0)
                    snprintf(label, sizeof label, "%gd", lives[i]);
                else
                    snprintf(label, sizeof label, "none");
                printf("%-5s %3d %-8s %2d/%-2d | %7.3f %7.3f | %7.2f %7.2f | %6.3f %9.2f %6.2f "
                       "%7.2f | %6.0f\n", label, (int)reps[k], locality ? "locality" : "plain",
                       f.done, f.runs, f.ratio_med, f.ratio_max, 100 * f.extra_med,
                       100 * f.extra_max, f.idle_med, f.hpf_med, f.bound_mean, 100 * f.lost_med,
                       f.wall);
                fprintf(dat, "%s %g %d %s %d %d %.4f %.4f %.5f %.5f %.5f %.3f %.5f %.3f %.3f\n",
                        label, lives[i], (int)reps[k], locality ? "locality" : "plain", f.runs,
                        f.done, f.ratio_med, f.ratio_max, f.extra_med, f.extra_max, f.idle_med,
                        f.hpf_med, f.lost_med, f.hpf_mean, f.bound_mean);
                fflush(stdout);
                fflush(dat);
            }
        }
    }
    fclose(dat);
    fclose(runs);
    /* one line per (dispatch, replication), median with the worst as a bar */
    used = (size_t)snprintf(script, sizeof script,
                            "set terminal svg size 900,420 dynamic font 'sans,11'\n"
                            "set output '%s.svg'\n"
                            "set title 'Makespan / ideal under churn (median of the seeds; "
                            "bar up to the worst)'\n"
                            "set xlabel 'mean host lifetime'\nset ylabel 'makespan / ideal'\n"
                            "set grid\nset key outside right\nset yrange [0:*]\n"
                            "set xrange [-0.5:%d.5]\nset offsets 0,0,0.5,0\nplot ",
                            name, nlives - 1);
    nblocks = 0;
    for (d = 0; d < 2; d++) {
        int locality = d == 0;
        if ((locality && !do_loc) || (!locality && !do_plain))
            continue;
        for (k = 0; k < nreps && used < sizeof script; k++, nblocks++)
            used += (size_t)snprintf(script + used, sizeof script - used,
                                     "%s'%s.dat' index %d using ($0+%.2f):7:7:8:xtic(1) with "
                                     "yerrorlines title '%s, R=%d'",
                                     nblocks ? ", " : "", name, nblocks,
                                     0.04 * nblocks - 0.1, locality ? "locality" : "plain",
                                     (int)reps[k]);
    }
    if (used < sizeof script)
        snprintf(script + used, sizeof script - used, "\n");
    emu_plot(cli->out_dir, name, script);
    return failed;
}
