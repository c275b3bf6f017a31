/*
 * scheduler_main.c - the scheduler program: a persistent FastCGI process
 * under Apache's mod_fcgid, one request at a time per process.
 *
 * The POST body is the raw <scheduler_request> XML (the client labels it
 * as a form, but it is not).  Every request gets HTTP 200 with a
 * <scheduler_reply>: the BOINC client treats any other status, or a
 * dropped connection, as a network failure and backs off hard.
 *
 * Without FastCGI (--once), one request is read from standard input and
 * the reply written to standard output, for tests and debugging.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcgiapp.h>

#include "buf.h"
#include "config.h"
#include "fcgi_io.h"
#include "handler.h"
#include "sched_limits.h"
#include "log.h"
#include "reply_build.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: scheduler [--config FILE] [--once] [--check-config] [--help]\n"
            "\n"
            "The locsched scheduler.  Run by Apache's mod_fcgid as a FastCGI program;\n"
            "it answers BOINC clients' scheduler requests.\n"
            "\n"
            "  --config FILE    configuration (default: $LOCSCHED_CONFIG, else ./locsched.conf)\n"
            "  --once           read one request from standard input, write the reply\n"
            "                   to standard output, and exit\n"
            "  --check-config   read the configuration and keys, report problems, exit\n"
            "  --help-config    print every configuration setting with its default\n");
}

static int run_once(struct sched_ctx *ctx)
{
    struct buf body, out;
    struct sched_stats st;
    char chunk[65536];
    size_t n;

    buf_init(&body);
    buf_init(&out);
    while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0) {
        buf_put(&body, chunk, n);
        if (body.len > LIM_REQUEST_BYTES + 1)
            break;
    }
    sched_handle(ctx, body.p ? body.p : "", body.len, &out, &st);
    fwrite(out.p, 1, out.len, stdout);
    fprintf(stderr, "outcome=%s jobs=%d reported=%d statements=%lu resent=%d lost=%d "
            "aborts=%d\n", st.outcome, st.jobs_sent, st.results_reported, st.statements,
            st.jobs_resent, st.results_lost, st.results_aborted);
    buf_free(&body);
    buf_free(&out);
    return strcmp(st.outcome, "ok") == 0 ? 0 : 1;
}

/* One request under FastCGI: the reply goes into out (fcgi_serve_xml). */
static void handle_request(FCGX_Request *request, struct buf *out, void *arg)
{
    struct sched_ctx *ctx = arg;
    struct sched_stats st;
    char *body = NULL;
    size_t len = 0;
    const char *method = FCGX_GetParam("REQUEST_METHOD", request->envp);
    int r;

    if (!method || strcmp(method, "POST") != 0) {
        reply_write_error(out, ctx,
                          "This is a BOINC project's scheduler: attach to the project "
                          "with a BOINC client.", ctx->cfg.min_request_delay);
        return;
    }
    r = fcgi_read_body(request->in, request->envp, LIM_REQUEST_BYTES, &body, &len);
    if (r == FIO_ERR_TOO_BIG) {
        log_warn("request body over %d bytes refused", LIM_REQUEST_BYTES);
        reply_write_error(out, ctx, "Scheduler request too large.", 3600);
    } else if (r != FIO_OK) {
        log_warn("could not read request body: %s", fio_strerror(r));
        reply_write_error(out, ctx, "The scheduler could not read this request.",
                          ctx->cfg.min_request_delay > 60 ? ctx->cfg.min_request_delay : 60);
    } else {
        sched_handle(ctx, body, len, out, &st);
    }
    free(body);
}

int main(int argc, char **argv)
{
    const char *config_path = NULL;
    int once = 0, check = 0, i;
    struct sched_ctx *ctx;
    char err[1024];

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
            config_path = argv[++i];
        } else if (strcmp(argv[i], "--once") == 0) {
            once = 1;
        } else if (strcmp(argv[i], "--check-config") == 0) {
            check = 1;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--help-config") == 0) {
            config_print_reference(stdout);
            return 0;
        } else {
            fprintf(stderr, "scheduler: unknown argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    signal(SIGPIPE, SIG_IGN);
    log_init("scheduler", LOG_INFO, NULL);
    sched_request_init();
    ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return 1;
    if (sched_ctx_init(ctx, config_locate(config_path), err, sizeof err) < 0) {
        fprintf(stderr, "scheduler: %s\n", err);
        log_error("cannot start: %s", err);
        free(ctx);
        return 1;
    }
    log_set_level(ctx->cfg.log_level);
    if (check) {
        printf("configuration %s: ok; database: %s\n", config_locate(config_path),
               ctx->db ? "reachable" : "NOT reachable");
        sched_ctx_free(ctx);
        free(ctx);
        return 0;
    }
    if (once)
        i = run_once(ctx);
    else {
        fcgi_serve_xml(handle_request, ctx);
        i = 0;
    }
    sched_ctx_free(ctx);
    free(ctx);
    return i;
}
