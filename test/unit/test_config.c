/*
 * test_config.c - the config table and reader: defaults, every kind of
 * value, and every error the reader must report with file and line.
 */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "tap.h"

static int parse(struct config *cfg, const char *text, char *err, size_t errlen)
{
    return config_parse(cfg, text, strlen(text), "t.conf", "/p", err, errlen);
}

int main(void)
{
    struct config cfg;
    char err[512];
    static const struct { const char *text; const char *msg; } bad[] = {
        { "no_such_key = 1\n", "t.conf:1: unknown setting 'no_such_key'" },
        { "# c\n\ndb_port = 70000\n", "t.conf:3: db_port must be between 0 and 65535" },
        { "db_port = 12x\n", "t.conf:1: db_port must be a whole number" },
        { "db_port =\n", "t.conf:1: db_port must be a whole number" },
        { "gpu_flops_scale = nan\n", "t.conf:1: gpu_flops_scale must be a number" },
        { "gpu_flops_scale = 2\n", "t.conf:1: gpu_flops_scale must be between" },
        { "move_ratio = 1e400\n", "t.conf:1: move_ratio must be a number" },
        { "sched_policy = ws3\n", "t.conf:1: sched_policy must be ws1 or ws2" },
        { "db_name = a\ndb_name = b\n", "t.conf:2: 'db_name' is set twice" },
        { "just words\n", "t.conf:1: expected 'name = value'" },
        { "record_requests = 2\n", "t.conf:1: record_requests must be between 0 and 1" },
        { "team_size_min = 30\nteam_size_max = 20\n", "team_size_min is larger" },
        { "max_jobs_per_reply = 33\n", "max_jobs_per_reply must be between 1 and 32" },
        { "db_timeout = -1\n", "db_timeout must be between 1 and 600" },
    };
    size_t i;

    config_defaults(&cfg);
    TAP_EQ_INT(cfg.sched_policy, POLICY_WS2, "default policy is WS2");
    TAP_EQ_INT(cfg.max_jobs_per_reply, 16, "default max_jobs_per_reply");
    TAP_EQ_STR(cfg.db_name, "locsched", "default db_name");

    TAP_EQ_INT(parse(&cfg, "", err, sizeof err), 0, "empty file is valid");
    TAP_EQ_STR(cfg.upload_dir, "/p/upload", "relative dirs resolve against the config folder");

    TAP_EQ_INT(parse(&cfg,
                     "  # comment\r\n"
                     "project_name =  My Project  \r\n"
                     "db_socket = /run/x.sock\n"
                     "upload_dir = up\n"
                     "sched_policy = ws1\n"
                     "db_port=3307\n"
                     "gpu_flops_scale = 0.5\n"
                     "db_password = p=ss # not a comment\n",
                     err, sizeof err), 0, "a full file parses (%s)", err);
    TAP_EQ_STR(cfg.project_name, "My Project", "value trimmed");
    TAP_EQ_STR(cfg.db_socket, "/run/x.sock", "absolute path kept");
    TAP_EQ_STR(cfg.upload_dir, "/p/up", "relative path resolved");
    TAP_EQ_INT(cfg.sched_policy, POLICY_WS1, "policy ws1");
    TAP_EQ_INT(cfg.db_port, 3307, "int without spaces");
    TAP_EQ_DBL(cfg.gpu_flops_scale, 0.5, 1e-12, "double");
    TAP_EQ_STR(cfg.db_password, "p=ss # not a comment", "value runs to end of line");

    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int r = parse(&cfg, bad[i].text, err, sizeof err);
        TAP_EQ_INT(r, -1, "bad config %zu rejected", i);
        TAP_CHECK(strstr(err, bad[i].msg) != NULL, "message for bad config %zu: %s", i, err);
    }

    {
        char nul[] = "db_name = a\0b\n";
        TAP_EQ_INT(config_parse(&cfg, nul, sizeof nul - 1, "t.conf", "/p", err, sizeof err), -1,
                   "NUL byte rejected");
    }
    TAP_EQ_INT(config_load(&cfg, "/nonexistent/locsched.conf", err, sizeof err), -1,
               "missing file is an error");
    TAP_CHECK(strstr(err, "cannot open") != NULL, "missing file message: %s", err);
    return tap_done();
}
