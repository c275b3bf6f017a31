/*
 * emu_opts.c - command-line options of the emulator (emu_opts.h).
 */
#include "emu_opts.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum kind { K_INT, K_DBL, K_DAYS, K_FLAG, K_STR, K_RANGE_I, K_RANGE_D, K_STUB, K_U64 };

struct opt {
    const char *name;
    enum kind kind;
    const char *arg;
    const char *help;
};

static const struct opt opts[] = {
    { "--hosts", K_INT, "N", "hosts at the start (and on average, with churn)" },
    { "--users", K_INT, "N", "volunteers owning the hosts" },
    { "--cpus", K_RANGE_I, "MIN:MAX", "CPUs per host" },
    { "--gflops", K_DBL, "X", "speed of the slowest CPU core, GFLOPS" },
    { "--spread", K_DBL, "X", "fastest / slowest CPU (10: a 10x range)" },
    { "--gpu-frac", K_DBL, "F", "fraction of hosts with a GPU" },
    { "--gpu-gflops", K_DBL, "X", "peak of the slowest GPU, GFLOPS (10x range)" },
    { "--on-frac", K_RANGE_D, "A[:B]", "fraction of time on (uniform in [A, B])" },
    { "--on-mean", K_DBL, "S", "mean on period, seconds (exponential periods)" },
    { "--life-days", K_DBL, "D", "churn: mean host lifetime in days (0: no churn)" },
    { "--lose-queue-per-day", K_DBL, "P",
      "chance per host and day that its client forgets all its jobs (reset project)" },
    { "--buf-min", K_DAYS, "D", "work buffer: minimum, days" },
    { "--buf-add", K_DAYS, "D", "work buffer: additional, days" },
    { "--conn-interval", K_DBL, "S", "seconds between network sessions (0: any time)" },
    { "--cs", K_INT, "1|2", "CPU scheduling: 1 round-robin, 2 with EDF under deadline risk" },
    { "--jc", K_INT, "1|2", "runtime estimates: 1 without, 2 with duration correction" },
    { "--fetch", K_INT, "1|2",
      "resource backoffs: 1 as seed 002, 2 as client 7.20 (finished jobs clear them; reports ask for work)" },
    { "--ignore-aborts", K_FLAG, "",
      "the client ignores the project's aborts (as the emulator did before client 7.20's)" },
    { "--f", K_DBL, "F", "jobs really take F times their estimate" },
    { "--rpc-fail", K_DBL, "P", "chance that an RPC fails in transport" },
    { "--max-reports", K_INT, "N", "finished jobs a client reports per RPC at most (64)" },
    { "--share", K_DBL, "S", "resource share of the locsched project" },
    { "--stub", K_STUB, "SHARE:FPOPS:DELAY[:SD]", "attach to another (stub) project" },
    { "--no-stubs", K_FLAG, "", "forget the stub projects set so far (the experiment's too)" },
    { "--locality", K_FLAG, "", "a locality batch (default: plain)" },
    { "--plain", K_FLAG, "", "a plain batch, dispatched in job order" },
    { "--no-file-pref", K_FLAG, "", "locality_file_preference = 0" },
    { "--no-positions", K_FLAG, "", "locality_positions = 0 (a team shares one window)" },
    { "--ws1", K_FLAG, "", "sched_policy = ws1" },
    { "--ws2", K_FLAG, "", "sched_policy = ws2 (default)" },
    { "--jobs", K_INT, "N", "jobs in the batch (0: enough for the run)" },
    { "--files", K_INT, "N", "input files of the batch (0: one per 100 jobs)" },
    { "--files-per-job", K_INT, "K", "consecutive files each job reads" },
    { "--file-bytes", K_DBL, "B", "size of each input file" },
    { "--fpops", K_DBL, "X", "estimated flops of each job" },
    { "--size-sd", K_DBL, "S", "job size: standard deviation / mean (log-normal)" },
    { "--delay-bound", K_INT, "S", "deadline of each job, seconds after it is sent" },
    { "--replication", K_INT, "N", "results per job" },
    { "--quorum", K_INT, "N", "successes that finish a job" },
    { "--team", K_RANGE_I, "MIN:MAX", "team_size_min and team_size_max" },
    { "--cursors", K_INT, "N", "cursors of a locality batch (0: the documented rule)" },
    { "--config", K_STR, "'KEY = VALUE'", "one more configuration line (repeatable)" },
    { "--days", K_DBL, "D", "simulated days at most" },
    { "--dt", K_DBL, "S", "time step, seconds" },
    { "--until-done", K_FLAG, "", "stop when the batch is complete" },
    { "--wg-period", K_DBL, "S", "simulated seconds between work generator passes" },
    { "--tr-period", K_DBL, "S", "... transitioner passes" },
    { "--ld-period", K_DBL, "S", "... locality daemon passes" },
    { "--seed", K_U64, "N", "random seed" },
    { "--verbose", K_FLAG, "", "progress and server logs on standard error (twice: with the "
                               "scheduler's debug lines, e.g. each stretch decision)" },
    { "--out", K_STR, "DIR", "folder for the experiment's table and plot (default .)" },
    { "--points", K_STR, "LIST", "the experiment's x values, comma-separated" },
    { "--name", K_STR, "NAME", "base name of the outputs NAME.dat, NAME.svg (default: the command)" },
    { "--quick", K_FLAG, "", "the experiment's small version" },
    { "--reps", K_STR, "LIST", "churn: replication levels (quorum = replication), comma-separated" },
    { "--dispatch", K_STR, "locality|plain|both", "churn: which dispatch to run" },
    { "--seeds", K_INT, "N", "churn: runs per point, seeds --seed .. --seed + N - 1" },
};

#define NOPTS (sizeof opts / sizeof opts[0])

void emu_opts_usage(FILE *out)
{
    size_t i;
    for (i = 0; i < NOPTS; i++) {
        char left[64];
        snprintf(left, sizeof left, "%s %s", opts[i].name, opts[i].arg);
        fprintf(out, "  %-34s %s\n", left, opts[i].help);
    }
}

static int num(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return s[0] && *end == '\0' && errno == 0 && isfinite(*v) ? 0 : -1;
}

int emu_parse_list(const char *s, double *v, int max)
{
    char buf[1024], *tok, *save = NULL;
    int n = 0;
    snprintf(buf, sizeof buf, "%s", s);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n == max || num(tok, &v[n]) < 0)
            return -1;
        n++;
    }
    return n;
}

static int pair(const char *s, double *a, double *b)
{
    char buf[128], *colon;
    snprintf(buf, sizeof buf, "%s", s);
    colon = strchr(buf, ':');
    if (colon)
        *colon = '\0';
    if (num(buf, a) < 0)
        return -1;
    if (!colon) {
        *b = *a;
        return 0;
    }
    return num(colon + 1, b);
}

static char config_lines[8192];

static int apply(struct emu_cli *cli, const char *name, const char *arg)
{
    struct emu_scenario *sc = &cli->sc;
    double v = 0, a = 0, b = 0;
    int iv;

#define IS(x) (strcmp(name, x) == 0)
    if (IS("--no-stubs")) { sc->nstubs = 0; return 0; }
    if (IS("--locality")) { sc->locality = 1; return 0; }
    if (IS("--plain")) { sc->locality = 0; return 0; }
    if (IS("--ignore-aborts")) { sc->client.ignore_aborts = 1; return 0; }
    if (IS("--no-file-pref")) { sc->file_pref = 0; return 0; }
    if (IS("--no-positions")) { sc->positions = 0; return 0; }
    if (IS("--ws1")) { sc->ws2 = 0; return 0; }
    if (IS("--ws2")) { sc->ws2 = 1; return 0; }
    if (IS("--until-done")) { sc->until_done = 1; return 0; }
    if (IS("--verbose")) { sc->verbose++; return 0; }
    if (IS("--quick")) { cli->quick = 1; return 0; }
    if (IS("--out")) { cli->out_dir = arg; return 0; }
    if (IS("--points")) { cli->points = arg; return 0; }
    if (IS("--reps")) { cli->reps = arg; return 0; }
    if (IS("--dispatch")) {
        if (strcmp(arg, "locality") != 0 && strcmp(arg, "plain") != 0 && strcmp(arg, "both") != 0)
            return -1;
        cli->dispatch = arg;
        return 0;
    }
    if (IS("--name")) {
        if (!arg[0] || strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != strlen(arg))
            return -1;
        cli->name = arg;
        return 0;
    }
    if (IS("--config")) {
        size_t used = strlen(config_lines);
        if (used + strlen(arg) + 2 >= sizeof config_lines)
            return -1;
        snprintf(config_lines + used, sizeof config_lines - used, "%s\n", arg);
        sc->extra_config = config_lines;
        return 0;
    }
    if (IS("--seed")) {
        char *end;
        errno = 0;
        sc->seed = strtoull(arg, &end, 10);
        return arg[0] && *end == '\0' && errno == 0 ? 0 : -1;
    }
    if (IS("--stub")) {
        struct emu_stub_params *p;
        double f[4] = { 0, 0, 0, 0 };
        char buf[256], *tok, *save = NULL;
        int n = 0;
        if (sc->nstubs == EMU_MAX_PROJ - 1)
            return -1;
        snprintf(buf, sizeof buf, "%s", arg);
        for (tok = strtok_r(buf, ":", &save); tok && n < 4; tok = strtok_r(NULL, ":", &save))
            if (num(tok, &f[n++]) < 0)
                return -1;
        if (n < 3 || f[0] < 0 || f[1] <= 0 || f[2] <= 0)
            return -1;
        p = &sc->stubs[sc->nstubs++];
        memset(p, 0, sizeof *p);
        p->share = f[0];
        p->fpops_est = f[1];
        p->delay_bound = f[2];
        p->size_sd = n > 3 ? f[3] : sc->size_sd;
        p->max_jobs = 16;
        p->request_delay = 7;
        return 0;
    }
    if (IS("--cpus") || IS("--team") || IS("--on-frac")) {
        if (pair(arg, &a, &b) < 0 || a < 0 || b < a)
            return -1;
        if (IS("--cpus")) {
            if (a < 1)
                return -1;
            sc->pop.cpus_min = (int)a;
            sc->pop.cpus_max = (int)b;
        } else if (IS("--team")) {
            if (a < 1)
                return -1;
            sc->team_min = (int)a;
            sc->team_max = (int)b;
        } else {
            if (a <= 0 || b > 1)
                return -1;
            sc->pop.on_frac_min = a;
            sc->pop.on_frac_max = b;
        }
        return 0;
    }
    if (num(arg, &v) < 0 || v < 0)
        return -1;
    iv = (int)v;
    if (IS("--hosts")) { if (iv < 1) return -1; sc->nhosts = iv; return 0; }
    if (IS("--users")) { if (iv < 1) return -1; sc->nusers = iv; return 0; }
    if (IS("--seeds")) { if (iv < 1 || iv > 1000) return -1; cli->seeds = iv; return 0; }
    if (IS("--gflops")) { if (v <= 0) return -1; sc->pop.cpu_gflops_min = v; return 0; }
    if (IS("--spread")) { if (v < 1) return -1; sc->pop.cpu_spread = v; return 0; }
    if (IS("--gpu-frac")) { if (v > 1) return -1; sc->pop.gpu_frac = v; return 0; }
    if (IS("--gpu-gflops")) { if (v <= 0) return -1; sc->pop.gpu_gflops_min = v; return 0; }
    if (IS("--on-mean")) { if (v <= 0) return -1; sc->pop.on_mean = v; return 0; }
    if (IS("--life-days")) { sc->life_days = v; return 0; }
    if (IS("--lose-queue-per-day")) { sc->lose_queue_per_day = v; return 0; }
    if (IS("--buf-min")) { sc->client.buf_min = v * 86400; return 0; }
    if (IS("--buf-add")) { sc->client.buf_add = v * 86400; return 0; }
    if (IS("--conn-interval")) { sc->client.conn_interval = v; return 0; }
    if (IS("--cs")) { if (iv != 1 && iv != 2) return -1; sc->client.cs = iv; return 0; }
    if (IS("--jc")) { if (iv != 1 && iv != 2) return -1; sc->client.jc = iv; return 0; }
    if (IS("--fetch")) { if (iv != 1 && iv != 2) return -1; sc->client.fetch = iv; return 0; }
    if (IS("--f")) { if (v <= 0) return -1; sc->error_f = v; return 0; }
    if (IS("--max-reports")) { if (iv < 1) return -1; sc->client.max_reports = iv; return 0; }
    if (IS("--rpc-fail")) { if (v >= 1) return -1; sc->rpc_fail = v; return 0; }
    if (IS("--share")) { if (v <= 0) return -1; sc->share = v; return 0; }
    if (IS("--jobs")) { sc->njobs = iv; return 0; }
    if (IS("--files")) { sc->nfiles = iv; return 0; }
    if (IS("--files-per-job")) {
        if (iv < 1 || iv > EMU_MAX_JOB_FILES) return -1;
        sc->files_per_job = iv;
        return 0;
    }
    if (IS("--file-bytes")) { sc->file_bytes = v; return 0; }
    if (IS("--fpops")) { if (v <= 0) return -1; sc->fpops_est = v; return 0; }
    if (IS("--size-sd")) { sc->size_sd = v; return 0; }
    if (IS("--delay-bound")) { if (iv < 1) return -1; sc->delay_bound = iv; return 0; }
    if (IS("--replication")) { if (iv < 1) return -1; sc->replication = iv; return 0; }
    if (IS("--quorum")) { if (iv < 1) return -1; sc->min_quorum = iv; return 0; }
    if (IS("--cursors")) { sc->ncursors = iv; return 0; }
    if (IS("--days")) { if (v <= 0) return -1; sc->days = v; return 0; }
    if (IS("--dt")) { if (v < 1) return -1; sc->dt = v; return 0; }
    if (IS("--wg-period")) { sc->wg_period = v; return 0; }
    if (IS("--tr-period")) { sc->tr_period = v; return 0; }
    if (IS("--ld-period")) { sc->ld_period = v; return 0; }
#undef IS
    return -1;
}

int emu_opts_parse(struct emu_cli *cli, int argc, char **argv, int first, char *err,
                   size_t errlen)
{
    int i;
    for (i = first; i < argc; i++) {
        const struct opt *o = NULL;
        size_t k;
        for (k = 0; k < NOPTS; k++)
            if (strcmp(argv[i], opts[k].name) == 0)
                o = &opts[k];
        if (!o) {
            snprintf(err, errlen, "unknown option '%s'", argv[i]);
            return -1;
        }
        if (o->kind == K_FLAG) {
            apply(cli, o->name, "");
            continue;
        }
        if (i + 1 >= argc) {
            snprintf(err, errlen, "%s wants a value (%s)", o->name, o->arg);
            return -1;
        }
        if (apply(cli, o->name, argv[i + 1]) < 0) {
            snprintf(err, errlen, "%s: bad value '%s' (%s)", o->name, argv[i + 1], o->arg);
            return -1;
        }
        i++;
    }
    if (cli->sc.min_quorum > cli->sc.replication) {
        snprintf(err, errlen, "--quorum is larger than --replication");
        return -1;
    }
    return 0;
}
