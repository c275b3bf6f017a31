/*
 * profile_driver.c - runs the scheduler's request handler in-process on
 * the load replay's simulated hosts, for repeatable profiles:
 *
 *   valgrind --tool=callgrind --toggle-collect=sched_handle \
 *       profile_driver --requests DIR --auth-file FILE --hosts N --count M
 *
 * The hosts (replay_host.h) build their requests from recorded bodies and
 * take in the replies exactly as under the replay tool, but each request
 * goes straight to sched_handle() on a context made from $LOCSCHED_CONFIG
 * (or --config): no Apache, no FastCGI, one database connection.  Prints
 * the scheduler's own counts (statements, jobs, reports per request) and
 * the CPU time spent inside sched_handle().  The simulated clock advances
 * 1 ms per request, so --run-seconds is in that clock.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "config.h"
#include "handler.h"
#include "log.h"
#include "replay_host.h"
#include "replay_reply.h"
#include "sched_request.h"

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A number option, strictly: the whole value a decimal number in [lo, hi]
 * (whole when integer), else a message naming the option, and -1. */
static int num_arg(const char *opt, const char *v, double lo, double hi, int integer,
                   double *out)
{
    char *end;
    double x;
    errno = 0;
    x = strtod(v, &end);
    if (!v[0] || *end || errno || !isfinite(x) || x < lo || x > hi ||
        (integer && x != floor(x))) {
        fprintf(stderr, "profile_driver: %s: '%s' is not a %s from %g to %g\n", opt, v,
                integer ? "whole number" : "number", lo, hi);
        return -1;
    }
    *out = x;
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *auth_file = NULL, *config = NULL;
    long count = 1000, i;
    int nhosts = 100, ntpl = 0, nauth = 0, k;
    struct rh_opts o = { .run_seconds = 0.05, .work_secs = -1, .upload_url = "",
                         .max_report = 64, .max_files = 1000 };
    struct rh_template tpls[64];
    char *auths[4096], line[512], err[1024], *names[64];
    struct rh_host *hosts;
    struct rp_reply *reply;
    struct sched_ctx *ctx;
    struct buf body, out;
    char key[2048] = "";
    double cpu_in = 0, t0, w0;
    unsigned long statements = 0, jobs = 0, reported = 0, failed = 0;
    FILE *f;
    DIR *d;
    struct dirent *e;
    int nnames = 0;

    if (argc == 2 && strcmp(argv[1], "--help") == 0) {
        printf("usage: profile_driver --requests DIR --auth-file FILE [--hosts N] "
               "[--count M] [--run-seconds X] [--work-secs S] [--config FILE]\n\n"
               "  --requests DIR     recorded <scheduler_request> files (*.xml), the templates\n"
               "  --auth-file FILE   account keys, one a line\n"
               "  --hosts N          simulated hosts (default 100)\n"
               "  --count M          requests to handle (default 1000)\n"
               "  --run-seconds X    simulated run time of a job (default 0.05)\n"
               "  --work-secs S      override the recorded work request\n"
               "  --config FILE      the project's configuration [$LOCSCHED_CONFIG]\n"
               "  --help             this text\n");
        return 0;
    }
    for (k = 1; k < argc; k++) {
        const char *a = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;
        if (!v) {
            fprintf(stderr, "usage: profile_driver --requests DIR --auth-file FILE [--hosts N] "
                            "[--count M] [--run-seconds X] [--work-secs S] [--config FILE]\n");
            return 2;
        }
        k++;
        if (strcmp(a, "--requests") == 0) dir = v;
        else if (strcmp(a, "--auth-file") == 0) auth_file = v;
        else if (strcmp(a, "--config") == 0) config = v;
        else if (strcmp(a, "--hosts") == 0) {
            double x;
            if (num_arg(a, v, 1, 1e6, 1, &x) < 0)
                return 2;
            nhosts = (int)x;
        } else if (strcmp(a, "--count") == 0) {
            double x;
            if (num_arg(a, v, 1, 1e12, 1, &x) < 0)
                return 2;
            count = (long)x;
        } else if (strcmp(a, "--run-seconds") == 0) {
            if (num_arg(a, v, 0, 1e6, 0, &o.run_seconds) < 0)
                return 2;
        } else if (strcmp(a, "--work-secs") == 0) {
            if (num_arg(a, v, -1, 1e9, 0, &o.work_secs) < 0)
                return 2;
        }
        else {
            fprintf(stderr, "profile_driver: unknown option %s\n", a);
            return 2;
        }
    }
    if (!dir || !auth_file || nhosts < 1 || count < 1) {
        fprintf(stderr, "profile_driver: need --requests DIR and --auth-file FILE\n");
        return 2;
    }
    d = opendir(dir);
    if (!d) {
        fprintf(stderr, "profile_driver: cannot open %s\n", dir);
        return 1;
    }
    while ((e = readdir(d)) && nnames < 64) {
        size_t l = strlen(e->d_name);
        if (l > 4 && strcmp(e->d_name + l - 4, ".xml") == 0)
            names[nnames++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)nnames, sizeof *names, cmp_str);
    for (k = 0; k < nnames; k++) {
        char path[4096];
        size_t len = 0;
        char *b;
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        b = buf_read_file(path, &len);
        if (b && rh_template_init(&tpls[ntpl], names[k], b, len, err, sizeof err) == 0)
            ntpl++;
        free(b);
        free(names[k]);
    }
    f = fopen(auth_file, "r");
    while (f && fgets(line, sizeof line, f) && nauth < 4096) {
        line[strcspn(line, " \t\r\n")] = '\0';
        if (line[0] && line[0] != '#')
            auths[nauth++] = strdup(line);
    }
    if (f)
        fclose(f);
    if (!ntpl || !nauth) {
        fprintf(stderr, "profile_driver: no templates or no authenticators\n");
        return 1;
    }

    log_init("profile_driver", LOG_WARN, NULL);
    sched_request_init();
    ctx = calloc(1, sizeof *ctx);
    hosts = calloc((size_t)nhosts, sizeof *hosts);
    reply = malloc(sizeof *reply);
    if (!ctx || !hosts || !reply) {
        fprintf(stderr, "profile_driver: out of memory\n");
        return 1;
    }
    if (sched_ctx_init(ctx, config_locate(config), err, sizeof err) < 0) {
        fprintf(stderr, "profile_driver: %s\n", err);
        return 1;
    }
    log_set_level(LOG_WARN);
    for (k = 0; k < nhosts; k++)
        rh_host_init(&hosts[k], k, &tpls[k % ntpl], auths[k % nauth]);
    buf_init(&body);
    buf_init(&out);
    t0 = wall_now();
    w0 = 0;
    for (i = 0; i < count; i++) {
        struct rh_host *h = &hosts[i % nhosts];
        struct sched_stats st;
        struct rh_outcome oc;
        double now = (double)i * 0.001, c0;
        int nrep = 0;
        if (rh_build(h, &o, now, key, &body, &nrep) < 0)
            return 1;
        c0 = cpu_now();
        sched_handle(ctx, body.p, body.len, &out, &st);
        cpu_in += cpu_now() - c0;
        statements += st.statements;
        jobs += (unsigned long)st.jobs_sent;
        reported += (unsigned long)st.results_reported;
        if (strcmp(st.outcome, "ok") != 0 || rp_parse(reply, out.p, out.len) != 0) {
            failed++;
            continue;
        }
        if (reply->have_code_sign_key && !key[0])
            snprintf(key, sizeof key, "%s", reply->code_sign_key);
        if (rh_apply(h, reply, &o, now, &oc) < 0)
            return 1;
    }
    w0 = wall_now() - t0;
    printf("profile_driver: %ld requests, %d hosts: %.2f statements/req, %.2f jobs/req, "
           "%.2f reported/req, %lu failed; %.3f ms CPU/req inside sched_handle, %.3f ms "
           "wall/req\n", count, nhosts, (double)statements / (double)count,
           (double)jobs / (double)count, (double)reported / (double)count, failed,
           1000 * cpu_in / (double)count, 1000 * w0 / (double)count);
    for (k = 0; k < nhosts; k++)
        rh_host_free(&hosts[k]);
    for (k = 0; k < ntpl; k++)
        rh_template_free(&tpls[k]);
    for (k = 0; k < nauth; k++)
        free(auths[k]);
    free(hosts);
    free(reply);
    buf_free(&body);
    buf_free(&out);
    sched_ctx_free(ctx);
    free(ctx);
    return failed ? 1 : 0;
}
