/*
 * emu_exp.c - the three experiments (emu_exp.h).
 */
#include "emu_exp.h"

#include <stdio.h>
#include <string.h>

#include "emu_plot.h"

#define MAX_POINTS 32
#define WS_BASE_SD 0.01            /* the sd of factor 1, relative to the mean */
#define PAPER_FPOPS 1.3e13         /* 3.6 hours at 1 GFLOPS (paper, table 2) */

static int points(const struct emu_cli *cli, const char *def, double *v)
{
    int n = emu_parse_list(cli->points ? cli->points : def, v, MAX_POINTS);
    if (n <= 0)
        fprintf(stderr, "emu: --points wants a comma-separated list of numbers\n");
    return n;
}

static int run_one(const struct emu_scenario *sc, struct emu_outcome *o, const char *what)
{
    char err[1024];
    if (emu_run(sc, o, err, sizeof err) < 0) {
        fprintf(stderr, "emu: %s: %s\n", what, err);
        return -1;
    }
    if (sc->verbose)
        emu_outcome_print(sc, o);
    return 0;
}

/* ---- WS1 against WS2 (paper 5.3) ---- */

void emu_exp_ws_defaults(struct emu_cli *cli)
{
    struct emu_scenario *sc = &cli->sc;
    struct emu_stub_params *st = &sc->stubs[0];

    sc->nhosts = 30;
    sc->nusers = 10;
    sc->pop.cpus_min = sc->pop.cpus_max = 2;
    sc->pop.on_frac_min = sc->pop.on_frac_max = 0.8;
    sc->pop.on_mean = 1000;
    /* paper 5.3: connection interval and work buffer raised to 2 days */
    sc->client.buf_min = 2 * 86400;
    sc->client.buf_add = 0.25 * 86400;
    sc->client.conn_interval = 2 * 86400;
    sc->fpops_est = PAPER_FPOPS;
    sc->delay_bound = 9 * 86400;
    sc->share = 100;
    /* a second project with equal share and jobs 10 times larger */
    sc->nstubs = 1;
    memset(st, 0, sizeof *st);
    st->share = 100;
    st->fpops_est = 10 * PAPER_FPOPS;
    st->delay_bound = 9 * 86400;
    st->max_jobs = 16;
    st->request_delay = 7;
    sc->days = 20;
    sc->tr_period = 3600;          /* plain batch, one replica: only timeouts wait for it */
    sc->wg_period = 3600;
}

int emu_exp_ws(struct emu_cli *cli)
{
    double x[MAX_POINTS];
    struct emu_outcome o[2];
    int n, i, p, failed = 0;
    const char *name;
    char script[2048];
    FILE *dat;

    if (cli->quick) {
        cli->sc.nhosts = cli->sc.nhosts > 10 ? 10 : cli->sc.nhosts;
        cli->sc.days = cli->sc.days > 12 ? 12 : cli->sc.days;
    }
    n = points(cli, cli->quick ? "1,30,1000" : "1,3,10,30,100,300,1000", x);
    if (n <= 0)
        return 2;
    name = cli->name ? cli->name : "ws";
    dat = emu_data_open(cli->out_dir, name);
    if (!dat)
        return 1;
    printf("WS1 against WS2: %d hosts, %.0f days, %s (jobs of %.3g flops, deadline %.1f "
           "days), buffer %.2f + %.2f days, connection every %.1f days\n",
           cli->sc.nhosts, cli->sc.days,
           cli->sc.nstubs ? "two projects of equal share, the other's jobs 10 times larger"
                          : "one project",
           cli->sc.fpops_est, cli->sc.delay_bound / 86400.0, cli->sc.client.buf_min / 86400,
           cli->sc.client.buf_add / 86400, cli->sc.client.conn_interval / 86400);
    fprintf(dat, "# WS1 against WS2 (paper 5.3); sd = factor * %.2f * mean job size\n"
                 "# factor sd waste_ws1 waste_ws2 idle_ws1 idle_ws2 shareviol_ws1 "
                 "shareviol_ws2 monotony_ws1 monotony_ws2 late_ws1 late_ws2\n",
            WS_BASE_SD);
    printf("%8s %7s | %9s %9s | %9s %9s | %9s %9s | %9s %9s\n", "factor", "sd", "waste WS1",
           "waste WS2", "idle WS1", "idle WS2", "shviol 1", "shviol 2", "monot 1", "monot 2");
    for (i = 0; i < n; i++) {
        double sd = x[i] * WS_BASE_SD;
        for (p = 0; p < 2; p++) {
            struct emu_scenario sc = cli->sc;
            char what[64];
            sc.ws2 = p;
            sc.size_sd = sd;
            sc.stubs[0].size_sd = sd;
            snprintf(what, sizeof what, "factor %g %s", x[i], p ? "WS2" : "WS1");
            if (run_one(&sc, &o[p], what) < 0) {
                failed = 1;
                memset(&o[p], 0, sizeof o[p]);
            }
        }
        printf("%8g %7.3g | %9.4f %9.4f | %9.4f %9.4f | %9.4f %9.4f | %9.4f %9.4f\n", x[i], sd,
               o[0].waste, o[1].waste, o[0].idleness, o[1].idleness, o[0].share_violation,
               o[1].share_violation, o[0].monotony, o[1].monotony);
        fprintf(dat, "%g %g %.5f %.5f %.5f %.5f %.5f %.5f %.5f %.5f %ld %ld\n", x[i], sd,
                o[0].waste, o[1].waste, o[0].idleness, o[1].idleness, o[0].share_violation,
                o[1].share_violation, o[0].monotony, o[1].monotony, o[0].jobs_late,
                o[1].jobs_late);
        fflush(stdout);
    }
    fclose(dat);
    snprintf(script, sizeof script,
             "set terminal svg size 900,420 dynamic font 'sans,11'\n"
             "set output '%s.svg'\n"
             "set multiplot layout 1,2 title 'WS1 against WS2: job-size standard deviation "
             "(factor x 1%% of the mean)'\n"
             "set logscale x\nset xlabel 'standard deviation factor'\nset grid\n"
             "set key top left\nset yrange [0:*]\n"
             "set title 'waste'\n"
             "plot '%s.dat' using 1:3 with linespoints title 'WS1', "
             "'' using 1:4 with linespoints title 'WS2'\n"
             "set title 'idleness'\n"
             "plot '%s.dat' using 1:5 with linespoints title 'WS1', "
             "'' using 1:6 with linespoints title 'WS2'\n"
             "unset multiplot\n",
             name, name, name);
    emu_plot(cli->out_dir, name, script);
    return failed;
}

/* ---- waste against slack (paper 5.1.1) ---- */

void emu_exp_slack_defaults(struct emu_cli *cli)
{
    struct emu_scenario *sc = &cli->sc;
    /* the paper's host (table 3) for every host, so that slack means the
     * same on each: 2 CPUs of 1 GFLOPS, on 80% of the time */
    sc->nhosts = 20;
    sc->nusers = 10;
    sc->pop.cpus_min = sc->pop.cpus_max = 2;
    sc->pop.cpu_gflops_min = 1;
    sc->pop.cpu_spread = 1;
    sc->pop.on_frac_min = sc->pop.on_frac_max = 0.8;
    sc->pop.on_mean = 1000;
    sc->fpops_est = PAPER_FPOPS;
    sc->size_sd = 0;
    sc->days = 10;
    sc->tr_period = 3600;
    sc->wg_period = 3600;
}

int emu_exp_slack(struct emu_cli *cli)
{
    double x[MAX_POINTS], runtime;
    struct emu_outcome o[2];
    int n, i, p, failed = 0;
    const char *name;
    char script[2048];
    FILE *dat;

    if (cli->quick) {
        cli->sc.nhosts = cli->sc.nhosts > 8 ? 8 : cli->sc.nhosts;
        cli->sc.days = cli->sc.days > 4 ? 4 : cli->sc.days;
    }
    n = points(cli, cli->quick ? "1,2,5,60" : "1,2,3,4,5,10,20,40,60", x);
    if (n <= 0)
        return 2;
    runtime = cli->sc.fpops_est / (cli->sc.pop.cpu_gflops_min * 1e9);
    name = cli->name ? cli->name : "slack";
    dat = emu_data_open(cli->out_dir, name);
    if (!dat)
        return 1;
    printf("Waste against slack: %d hosts, %.0f days, one project, jobs of %.0f s on a "
           "%.3g GFLOPS core, on_frac %.2f, buffer %.2f + %.2f days\n",
           cli->sc.nhosts, cli->sc.days, runtime, cli->sc.pop.cpu_gflops_min,
           cli->sc.pop.on_frac_min, cli->sc.client.buf_min / 86400,
           cli->sc.client.buf_add / 86400);
    fprintf(dat, "# waste against slack (paper 5.1.1); deadline = slack * %.0f s\n"
                 "# slack waste_ws2 waste_ws1 idle_ws2 idle_ws1 late_ws2 late_ws1 "
                 "finished_ws2 finished_ws1\n", runtime);
    printf("%6s %9s | %9s %9s | %9s %9s | %11s %11s\n", "slack", "deadline", "waste WS2",
           "waste WS1", "idle WS2", "idle WS1", "late/done 2", "late/done 1");
    for (i = 0; i < n; i++) {
        for (p = 0; p < 2; p++) {
            struct emu_scenario sc = cli->sc;
            char what[64];
            sc.ws2 = !p;
            sc.delay_bound = (int)(x[i] * runtime + 0.5);
            if (sc.delay_bound < 1)
                sc.delay_bound = 1;
            snprintf(what, sizeof what, "slack %g %s", x[i], p ? "WS1" : "WS2");
            if (run_one(&sc, &o[p], what) < 0) {
                failed = 1;
                memset(&o[p], 0, sizeof o[p]);
            }
        }
        printf("%6g %8.1fh | %9.4f %9.4f | %9.4f %9.4f | %5ld/%-5ld %5ld/%-5ld\n", x[i],
               x[i] * runtime / 3600, o[0].waste, o[1].waste, o[0].idleness, o[1].idleness,
               o[0].jobs_late, o[0].jobs_finished, o[1].jobs_late, o[1].jobs_finished);
        fprintf(dat, "%g %.5f %.5f %.5f %.5f %ld %ld %ld %ld\n", x[i], o[0].waste, o[1].waste,
                o[0].idleness, o[1].idleness, o[0].jobs_late, o[1].jobs_late,
                o[0].jobs_finished, o[1].jobs_finished);
        fflush(stdout);
    }
    fclose(dat);
    snprintf(script, sizeof script,
             "set terminal svg size 900,420 dynamic font 'sans,11'\n"
             "set output '%s.svg'\n"
             "set multiplot layout 1,2 title 'Waste and idleness against slack "
             "(deadline / job runtime)'\n"
             "set logscale x\nset xlabel 'slack'\nset grid\nset key top right\n"
             "set yrange [0:1.05]\n"
             "set title 'waste'\n"
             "plot '%s.dat' using 1:2 with linespoints title 'WS2', "
             "'' using 1:3 with linespoints title 'WS1'\n"
             "set title 'idleness'\n"
             "plot '%s.dat' using 1:4 with linespoints title 'WS2', "
             "'' using 1:5 with linespoints title 'WS1'\n"
             "unset multiplot\n",
             name, name, name);
    emu_plot(cli->out_dir, name, script);
    return failed;
}

/* ---- locality (2,000 files, 1,000 hosts) ---- */

void emu_exp_locality_defaults(struct emu_cli *cli)
{
    struct emu_scenario *sc = &cli->sc;
    sc->nhosts = 1000;
    sc->nusers = 250;
    sc->pop.cpus_min = 1;
    sc->pop.cpus_max = 4;
    sc->pop.gpu_frac = 0.1;
    sc->pop.gpu_gflops_min = 20;   /* 5 to 50 GFLOPS achieved: like a fast multi-core CPU */
    sc->pop.on_frac_min = 0.6;
    sc->pop.on_frac_max = 1.0;
    sc->locality = 1;
    sc->njobs = 20000;
    sc->nfiles = 2000;
    sc->files_per_job = 2;
    sc->file_bytes = 20e6;
    sc->fpops_est = 1e14;          /* 2.8 to 28 hours on a CPU core: a few jobs per request */
    sc->size_sd = 0.2;
    sc->delay_bound = 7 * 86400;
    sc->replication = 2;
    sc->min_quorum = 2;
    sc->days = 12;
    sc->until_done = 1;
    sc->wg_period = 600;
    sc->tr_period = 600;
}

int emu_exp_locality(struct emu_cli *cli)
{
    static const char *const names[3] = { "cursors", "positions", "plain" };
    struct emu_outcome o[3];
    double x[MAX_POINTS];
    int k, i, n, failed = 0;
    const char *name;
    char script[2048];
    FILE *dat;

    /* --points picks the ways: 0 cursors, 1 cursors with positions, 2 plain */
    n = points(cli, "0,1,2", x);
    if (n < 0)
        return 1;

    if (cli->quick) {
        cli->sc.nhosts = 200;
        cli->sc.nusers = 50;
        cli->sc.njobs = 4000;
        cli->sc.nfiles = 400;
    }
    name = cli->name ? cli->name : "locality";
    dat = emu_data_open(cli->out_dir, name);
    if (!dat)
        return 1;
    printf("Locality: %d hosts, %d jobs over %d files (%d per job, %.0f MB each), "
           "replication %d, teams %d..%d\n",
           cli->sc.nhosts, cli->sc.njobs, cli->sc.nfiles, cli->sc.files_per_job,
           cli->sc.file_bytes / 1e6, cli->sc.replication, cli->sc.team_min, cli->sc.team_max);
    fprintf(dat, "# locality experiment: config hosts_per_file MB_per_job makespan_h ideal_h "
                 "ratio rpcs_per_job idleness waste done range_bound\n");
    printf("%-13s %9s %6s %9s %11s %8s %6s %9s %8s %7s %5s\n", "dispatch", "hosts/file", "bound",
           "MB/job", "makespan h", "ideal h", "ratio", "RPCs/job", "idle", "waste", "done");
    for (i = 0; i < n; i++) {
        struct emu_scenario sc = cli->sc;
        k = (int)x[i];
        if (k < 0 || k > 2) {
            fprintf(stderr, "emu: locality --points: 0 (cursors), 1 (positions), 2 (plain)\n");
            return 1;
        }
        sc.locality = k < 2;
        sc.positions = k == 1;
        if (run_one(&sc, &o[k], names[k]) < 0) {
            failed = 1;
            memset(&o[k], 0, sizeof o[k]);
        }
        printf("%-13s %9.2f %6.2f %9.2f %11.2f %8.2f %6.3f %9.2f %8.4f %7.4f %5s\n", names[k],
               o[k].hosts_per_file, o[k].range_bound, o[k].bytes_per_job / 1e6,
               o[k].makespan / 3600,
               o[k].ideal / 3600, o[k].makespan_ratio, o[k].rpcs_per_job, o[k].idleness,
               o[k].waste, o[k].batch_done ? "yes" : "no");
        fprintf(dat, "%s %.3f %.3f %.3f %.3f %.4f %.3f %.5f %.5f %d %.3f\n", names[k],
                o[k].hosts_per_file, o[k].bytes_per_job / 1e6, o[k].makespan / 3600,
                o[k].ideal / 3600, o[k].makespan_ratio, o[k].rpcs_per_job, o[k].idleness,
                o[k].waste, o[k].batch_done, o[k].range_bound);
        fflush(stdout);
    }
    fclose(dat);
    snprintf(script, sizeof script,
             "set terminal svg size 1000,380 dynamic font 'sans,11'\n"
             "set output '%s.svg'\n"
             "set multiplot layout 1,3 title 'One batch, three ways of dispatching it'\n"
             "set style fill solid 0.6 border -1\nset boxwidth 0.6\n"
             "set grid ytics\nset yrange [0:*]\nset xrange [-0.6:2.6]\nunset key\n"
             "set xtics rotate by -25 font ',10'\n"
             "set title 'hosts per input file'\n"
             "plot '%s.dat' using 0:2:xtic(1) with boxes\n"
             "set title 'MB downloaded per job'\n"
             "plot '%s.dat' using 0:3:xtic(1) with boxes\n"
             "set title 'makespan / ideal'\n"
             "plot '%s.dat' using 0:6:xtic(1) with boxes\n"
             "unset multiplot\n",
             name, name, name, name);
    emu_plot(cli->out_dir, name, script);
    return failed;
}
