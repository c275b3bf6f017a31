/*
 * webrpc_main.c - the program webrpc: a persistent FastCGI process under
 * Apache's mod_fcgid that answers a BOINC project's account web RPCs,
 * get_project_config.php, create_account.php and lookup_account.php, at
 * the paths the client uses under the master URL (the web server maps
 * them to this program; the RPC is the last part of SCRIPT_NAME).
 *
 * Arguments come URL-encoded in the query string (GET) or the form body
 * (POST), at most ACCT_ARGS_MAX bytes.  Every request gets HTTP 200 with
 * an XML reply; errors carry a BOINC error number and a message, which
 * the client shows.
 *
 * Without FastCGI (--once RPC), the arguments are read from standard
 * input and the reply written to standard output, for tests.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcgiapp.h>

#include "account_args.h"
#include "account_reply.h"
#include "buf.h"
#include "config.h"
#include "fcgi_io.h"
#include "log.h"
#include "webrpc_handler.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: webrpc [--config FILE] [--once RPC [--addr ADDR]] [--check-config] [--help]\n"
            "\n"
            "The account web RPCs of a locsched project (get_project_config.php,\n"
            "create_account.php, lookup_account.php), run by Apache's mod_fcgid as a\n"
            "FastCGI program: BOINC clients and the BOINC Manager create accounts and\n"
            "find their account keys through it.\n"
            "\n"
            "  --config FILE    configuration (default: $LOCSCHED_CONFIG, else ./locsched.conf)\n"
            "  --once RPC       answer one request of RPC (e.g. create_account.php) with the\n"
            "                   URL-encoded arguments on standard input, write the reply to\n"
            "                   standard output, and exit (status 0 when it was no error)\n"
            "  --addr ADDR      the client address --once counts for the rate limit\n"
            "  --check-config   read the configuration, report problems, exit\n");
}

static void log_result(enum webrpc_kind kind, const char *addr, const struct webrpc_result *r)
{
    char esc[80];
    log_escape(addr ? addr : "unknown", addr ? strlen(addr) : 7, esc, sizeof esc);
    if (r->error_num)
        log_info("[user#%d] %s from %s: error %d", r->user_id, webrpc_name(kind), esc,
                 r->error_num);
    else if (kind != WEBRPC_CONFIG)
        log_info("[user#%d] %s from %s: %s", r->user_id, webrpc_name(kind), esc,
                 r->created ? "account created" : "key sent");
}

static int run_once(struct webrpc_ctx *ctx, const char *rpc, const char *addr)
{
    char args[ACCT_ARGS_MAX + 2];
    struct buf out;
    struct webrpc_result res;
    enum webrpc_kind kind = webrpc_route(rpc);
    size_t n = fread(args, 1, sizeof args - 1, stdin);

    args[n] = '\0';
    while (n > 0 && (args[n - 1] == '\n' || args[n - 1] == '\r'))
        args[--n] = '\0';
    buf_init(&out);
    webrpc_handle(ctx, kind, args, n, addr, &out, &res);
    log_result(kind, addr, &res);
    fwrite(out.p, 1, out.len, stdout);
    buf_free(&out);
    return res.error_num ? 1 : 0;
}

/* The path of the request without its query: SCRIPT_NAME, else REQUEST_URI. */
static void request_path(FCGX_ParamArray envp, char *path, size_t cap)
{
    const char *s = FCGX_GetParam("SCRIPT_NAME", envp);
    size_t n;
    if (!s || !s[0])
        s = FCGX_GetParam("REQUEST_URI", envp);
    if (!s)
        s = "";
    n = strcspn(s, "?");
    snprintf(path, cap, "%.*s", (int)(n < cap ? n : cap - 1), s);
}

/* One request under FastCGI: the reply goes into out (fcgi_serve_xml). */
static void handle_request(FCGX_Request *request, struct buf *out, void *arg)
{
    struct webrpc_ctx *ctx = arg;
    struct webrpc_result res;
    const char *method = FCGX_GetParam("REQUEST_METHOD", request->envp);
    const char *query = FCGX_GetParam("QUERY_STRING", request->envp);
    const char *addr = FCGX_GetParam("REMOTE_ADDR", request->envp);
    const char *args = query ? query : "";
    char path[256];
    char *body = NULL;
    size_t len = strlen(args);
    enum webrpc_kind kind;
    int r = FIO_OK;

    request_path(request->envp, path, sizeof path);
    kind = webrpc_route(path);
    if (method && strcmp(method, "POST") == 0) {
        r = fcgi_read_body(request->in, request->envp, ACCT_ARGS_MAX, &body, &len);
        if (r == FIO_OK && len > 0)
            args = body;
        else if (r == FIO_OK)
            len = strlen(args);
    }
    if (r != FIO_OK) {
        memset(&res, 0, sizeof res);
        res.error_num = ACCT_ERR_INVALID_PARAM;
        account_reply_error(out, res.error_num, r == FIO_ERR_TOO_BIG
                            ? "Request longer than 4096 bytes." : "The request could not be read.");
    } else {
        webrpc_handle(ctx, kind, args, len, addr, out, &res);
    }
    log_result(kind, addr, &res);
    free(body);
}

int main(int argc, char **argv)
{
    const char *config_path = NULL, *once = NULL, *addr = "local";
    int check = 0, i, rc;
    struct webrpc_ctx *ctx;
    char err[1024];

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
            config_path = argv[++i];
        } else if (strcmp(argv[i], "--once") == 0 && i + 1 < argc) {
            once = argv[++i];
        } else if (strcmp(argv[i], "--addr") == 0 && i + 1 < argc) {
            addr = argv[++i];
        } else if (strcmp(argv[i], "--check-config") == 0) {
            check = 1;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "webrpc: unknown or incomplete argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    signal(SIGPIPE, SIG_IGN);
    log_init("webrpc", LOG_INFO, NULL);
    ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return 1;
    if (webrpc_ctx_init(ctx, config_locate(config_path), err, sizeof err) < 0) {
        fprintf(stderr, "webrpc: %s\n", err);
        log_error("cannot start: %s", err);
        free(ctx);
        return 1;
    }
    log_set_level(ctx->cfg.log_level);
    rc = 0;
    if (check)
        printf("configuration %s: ok; database: %s\n", config_locate(config_path),
               ctx->db ? "reachable" : "NOT reachable");
    else if (once)
        rc = run_once(ctx, once, addr);
    else
        fcgi_serve_xml(handle_request, ctx);
    webrpc_ctx_free(ctx);
    free(ctx);
    return rc;
}
