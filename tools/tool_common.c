/*
 * tool_common.c - shared start-up of the admin tools (tool_common.h).
 */
#include "tool_common.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int tool_open(const char *prog, const char *config_path, struct config *cfg,
              struct db_conn **db)
{
    struct db_params p;
    char err[1024];

    if (config_load(cfg, config_locate(config_path), err, sizeof err) < 0) {
        fprintf(stderr, "%s: %s\n", prog, err);
        return -1;
    }
    memset(&p, 0, sizeof p);
    p.host = cfg->db_host;
    p.user = cfg->db_user;
    p.password = cfg->db_password;
    p.name = cfg->db_name;
    p.socket = cfg->db_socket;
    p.port = cfg->db_port;
    p.timeout = cfg->db_timeout;
    p.lock_wait_timeout = cfg->db_lock_wait_timeout;
    p.retries = cfg->db_retries;
    *db = db_open(&p, err, sizeof err);
    if (!*db) {
        fprintf(stderr, "%s: %s\n", prog, err);
        return -1;
    }
    return 0;
}

int tool_copy_file(const char *prog, const char *src, const char *dst)
{
    char buf[65536];
    ssize_t n;
    int in, out, rc = 0;

    in = open(src, O_RDONLY | O_CLOEXEC);
    if (in < 0) {
        fprintf(stderr, "%s: cannot read %s: %s\n", prog, src, strerror(errno));
        return -1;
    }
    out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (out < 0) {
        fprintf(stderr, "%s: cannot create %s: %s\n", prog, dst, strerror(errno));
        close(in);
        return -1;
    }
    while ((n = read(in, buf, sizeof buf)) > 0) {
        if (write(out, buf, (size_t)n) != n) {
            fprintf(stderr, "%s: writing %s: %s\n", prog, dst, strerror(errno));
            rc = -1;
            break;
        }
    }
    if (n < 0) {
        fprintf(stderr, "%s: reading %s: %s\n", prog, src, strerror(errno));
        rc = -1;
    }
    close(in);
    if (close(out) != 0)
        rc = -1;
    if (rc < 0)
        unlink(dst);
    return rc;
}

int tool_parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v;
    if (!s || !s[0] || isspace((unsigned char)s[0]))
        return -1;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int tool_parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v;
    if (!s || !s[0] || isspace((unsigned char)s[0]))
        return -1;
    errno = 0;
    v = strtod(s, &end);
    if (errno || *end || !isfinite(v) || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int tool_parse_id(const char *s)
{
    long v;
    if (!s || strspn(s, "0123456789") != strlen(s))
        return 0;
    return tool_parse_long(s, 1, INT_MAX, &v) == 0 ? (int)v : 0;
}
