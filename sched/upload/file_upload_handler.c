/*
 * file_upload_handler.c - the project's file upload handler: a persistent
 * FastCGI program (Apache mod_fcgid) that receives result output files
 * from BOINC clients and stores them flat in the config's upload_dir.
 *
 * Protocol (BOINC client 7.x; parser in upload_request.h):
 *   get_file_size NAME  -> <status>0</status><file_size>N</file_size>,
 *                          N = bytes already held (0 if none)
 *   file_upload         -> <status>S</status>[<message>..</message>]
 *     S = 0 done, -1 permanent failure (the client gives up on the file),
 *     1 transient failure (the client retries later, asking the size
 *     first for files of 8 KB or more).
 * Every reply is HTTP 200 with the XML body.
 *
 * Security assumptions:
 * - Requests are hostile.  An upload is accepted only with a valid
 *   <xml_signature>: the scheduler's HMAC over (name, max_nbytes), see
 *   upload_auth.h.  nbytes <= max_nbytes is enforced, and nothing is ever
 *   written past nbytes, so a client cannot store more than the scheduler
 *   allowed for that name.
 * - Names are plain file names ([A-Za-z0-9_.-], no leading '.', no "..")
 *   opened relative to a descriptor of upload_dir with O_NOFOLLOW; new
 *   files are created with O_EXCL.
 * - Resuming: data always continues the bytes already held (append only);
 *   bytes the server already has are skipped, a gap is a transient error.
 *   An exclusive flock() on the file serialises concurrent uploads of one
 *   name; after taking it we check that the name still refers to the
 *   locked file (an md5 failure may have deleted it meanwhile).
 * - When the last byte arrives and md5_cksum was given, the whole file is
 *   checked; on mismatch it is deleted and the client told -1.
 * - Messages in replies are our own text; untrusted strings are logged
 *   only through log_escape().
 *
 * Configuration: config_locate(NULL) (LOCSCHED_CONFIG, set by Apache with
 * FcgidInitialEnv), key from KEY_DIR/upload_hmac_key, log to
 * LOG_DIR/file_upload_handler.log (stderr, i.e. Apache's error log, if
 * that cannot be opened).  Until the config, upload dir and key load,
 * requests get transient errors and loading is retried.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <fcgiapp.h>

#include "config.h"
#include "crypto_sign.h"
#include "fcgi_io.h"
#include "sched_limits.h"
#include "log.h"
#include "upload_auth.h"
#include "upload_request.h"

#define PROG "file_upload_handler"
#define IO_CHUNK        65536
#define LOCK_WAIT_MS    3000   /* wait this long for a concurrent upload of the same file */
#define LOCK_POLL_MS    50
#define OPEN_TRIES      3      /* the file vanished under us this often: give up (transient) */
#define FILE_MODE       0644

enum { ST_OK = 0, ST_PERMANENT = -1, ST_TRANSIENT = 1 };

/* Process-wide state: configuration and open resources, reused by every
 * request.  Per-request data lives in struct uh_request. */
struct uh_state {
    int configured;
    struct config cfg;
    char key_path[CONFIG_STR_MAX + 32];
    struct upload_key key;
    int updir_fd;
    FILE *log_file;
    time_t last_setup_log;
};

/* One request: its streams, body and reply. */
struct uh_request {
    FCGX_Request *fcgi;
    char ip[64];                       /* REMOTE_ADDR, for log lines */
    struct fcgi_body body;
    int body_open;
    struct upload_request req;
    int status;                        /* reply status */
    int has_size;
    long long file_size;
    char message[256];
    char prefix[UPREQ_PREFIX_MAX];
    char io[IO_CHUNK];
};

__attribute__((format(printf, 3, 4)))
static void set_reply(struct uh_request *r, int status, const char *fmt, ...)
{
    va_list ap;

    r->status = status;
    va_start(ap, fmt);
    vsnprintf(r->message, sizeof r->message, fmt, ap);
    va_end(ap);
}

/* Escape &, < and > of our own message text for the XML reply. */
static void xml_escape(const char *in, char *out, size_t outlen)
{
    size_t o = 0;
    const char *rep;

    for (; *in && o + 1 < outlen; in++) {
        rep = *in == '&' ? "&amp;" : *in == '<' ? "&lt;" : *in == '>' ? "&gt;" : NULL;
        if (rep) {
            size_t k = strlen(rep);
            if (o + k >= outlen)
                break;
            memcpy(out + o, rep, k);
            o += k;
        } else {
            out[o++] = *in;
        }
    }
    out[o] = '\0';
}

static void send_reply(struct uh_request *r)
{
    char body[1024], msg[600], extra[700];
    int n;

    extra[0] = '\0';
    if (r->has_size)
        snprintf(extra, sizeof extra, "    <file_size>%lld</file_size>\n", r->file_size);
    else if (r->message[0]) {
        xml_escape(r->message, msg, sizeof msg);
        snprintf(extra, sizeof extra, "    <message>%s</message>\n", msg);
    }
    n = snprintf(body, sizeof body,
                 "<data_server_reply>\n    <status>%d</status>\n%s</data_server_reply>\n",
                 r->status, extra);
    if (n < 0 || (size_t)n >= sizeof body)
        n = snprintf(body, sizeof body,
                     "<data_server_reply>\n    <status>1</status>\n</data_server_reply>\n");
    if (fcgi_write_xml(r->fcgi->out, body, (size_t)n) < 0)
        log_info("[ip %s] could not send the reply (client gone?)", r->ip);
}

static int uh_key(struct uh_state *st);

/*
 * Load the configuration, open the log and the upload folder, and try the
 * HMAC key (so that a missing key shows in the log at start; uploads retry
 * it).  Returns 0, or -1 after logging why (at most once a minute).
 */
static int uh_setup(struct uh_state *st)
{
    char err[CONFIG_STR_MAX + 256], path[CONFIG_STR_MAX + 64];
    const char *cfg_path = config_locate(NULL);
    time_t now = time(NULL);
    int quiet = now - st->last_setup_log < 60;
    int fd;

    config_defaults(&st->cfg);
    if (config_load(&st->cfg, cfg_path, err, sizeof err) < 0) {
        if (!quiet)
            log_error("cannot load the configuration %s: %s", cfg_path ? cfg_path : "(none)", err);
        st->last_setup_log = now;
        return -1;
    }
    log_set_level(st->cfg.log_level);
    if (!st->log_file && st->cfg.log_dir[0]) {
        int n = snprintf(path, sizeof path, "%s/%s.log", st->cfg.log_dir, PROG);
        if (n > 0 && (size_t)n < sizeof path)
            st->log_file = fopen(path, "ae");
        if (st->log_file)
            log_init(PROG, st->cfg.log_level, st->log_file);
        else
            log_warn("cannot open log file in %s (%s); logging to stderr", st->cfg.log_dir,
                     strerror(errno));
    }
    fd = open(st->cfg.upload_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        if (!quiet)
            log_error("cannot open upload_dir %s: %s", st->cfg.upload_dir, strerror(errno));
        st->last_setup_log = now;
        return -1;
    }
    if (snprintf(st->key_path, sizeof st->key_path, "%s/%s", st->cfg.key_dir, UA_KEY_FILE) >=
        (int)sizeof st->key_path) {
        close(fd);
        log_error("key_dir too long");
        return -1;
    }
    st->updir_fd = fd;
    st->configured = 1;
    log_info("ready: config %s, upload_dir %s", cfg_path, st->cfg.upload_dir);
    uh_key(st);
    return 0;
}

/* Make sure the HMAC key is loaded.  Returns 0 or -1 (logged). */
static int uh_key(struct uh_state *st)
{
    char err[CONFIG_STR_MAX + 256], warn[CONFIG_STR_MAX + 256];
    time_t now = time(NULL);

    if (st->key.loaded)
        return 0;
    if (ua_key_load(&st->key, st->key_path, warn, sizeof warn, err, sizeof err) < 0) {
        if (now - st->last_setup_log >= 60)
            log_error("%s", err);
        st->last_setup_log = now;
        return -1;
    }
    if (warn[0])
        log_warn("%s", warn);
    return 0;
}

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/*
 * Open (creating with O_EXCL if absent) upload_dir/NAME for reading and
 * writing, and take an exclusive flock on it, waiting up to LOCK_WAIT_MS.
 * Returns the descriptor, or -1 with a reply set in r.
 */
static int open_locked(struct uh_state *st, struct uh_request *r, const char *name,
                       const char *lname)
{
    struct stat fst, pst;
    int tries, fd, waited;

    for (tries = 0; tries < OPEN_TRIES; tries++) {
        fd = openat(st->updir_fd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0 && errno == ENOENT) {
            fd = openat(st->updir_fd, name,
                        O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, FILE_MODE);
            if (fd < 0 && errno == EEXIST)
                continue;   /* created by a concurrent upload: open that one */
        }
        if (fd < 0) {
            log_error("[file %s] cannot open in upload_dir: %s", lname, strerror(errno));
            set_reply(r, ST_TRANSIENT, "server cannot open the file");
            return -1;
        }
        if (fstat(fd, &fst) < 0 || !S_ISREG(fst.st_mode)) {
            log_error("[file %s] is not a regular file in upload_dir", lname);
            close(fd);
            set_reply(r, ST_TRANSIENT, "server cannot open the file");
            return -1;
        }
        for (waited = 0; flock(fd, LOCK_EX | LOCK_NB) < 0; waited += LOCK_POLL_MS) {
            if ((errno != EWOULDBLOCK && errno != EINTR) || waited >= LOCK_WAIT_MS) {
                log_info("[ip %s] [file %s] busy: another upload holds it", r->ip, lname);
                close(fd);
                set_reply(r, ST_TRANSIENT, "file is being uploaded by another request");
                return -1;
            }
            sleep_ms(LOCK_POLL_MS);
        }
        /* The name must still be this file (not deleted or replaced). */
        if (fstatat(st->updir_fd, name, &pst, AT_SYMLINK_NOFOLLOW) == 0 &&
            pst.st_dev == fst.st_dev && pst.st_ino == fst.st_ino)
            return fd;
        close(fd);
    }
    set_reply(r, ST_TRANSIENT, "file changed during the upload; try again");
    return -1;
}

/* pwrite all of buf at off.  Returns 0 or -1 (errno set). */
static int write_all(int fd, const char *buf, size_t n, long long off)
{
    ssize_t w;

    while (n > 0) {
        w = pwrite(fd, buf, n, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        buf += w;
        n -= (size_t)w;
        off += w;
    }
    return 0;
}

/*
 * Append the request's data to fd, which holds *size bytes: skip the data
 * before *size, write the rest at *size.  Updates *size.  Returns 0, or
 * -1 with a reply set (transient: disk error or short body).
 */
static int append_data(struct uh_request *r, int fd, long long *size, const char *lname)
{
    const struct upload_request *q = &r->req;
    long long pos = q->offset;           /* file offset of the next data byte */
    const char *chunk = q->data;
    size_t n = q->data_len;
    long long got;

    for (;;) {
        if (n > 0) {
            long long end = pos + (long long)n;
            if (end > q->nbytes) {        /* cannot happen: the parser checked data_total */
                set_reply(r, ST_PERMANENT, "more data than nbytes");
                return -1;
            }
            if (end > *size) {
                size_t skip = pos < *size ? (size_t)(*size - pos) : 0;
                if (write_all(fd, chunk + skip, n - skip, pos + (long long)skip) < 0) {
                    log_error("[file %s] write failed: %s", lname, strerror(errno));
                    set_reply(r, ST_TRANSIENT, "server disk error");
                    return -1;
                }
                *size = end;
            }
            pos = end;
        }
        got = fcgi_body_read(&r->body, r->io, sizeof r->io);
        if (got < 0) {
            log_info("[ip %s] [file %s] request body ended early at %lld", r->ip, lname, pos);
            set_reply(r, ST_TRANSIENT, "request body ended early");
            return -1;
        }
        if (got == 0)
            return 0;
        chunk = r->io;
        n = (size_t)got;
    }
}

/* A file_upload request whose header parsed. */
static void handle_upload(struct uh_state *st, struct uh_request *r)
{
    const struct upload_request *q = &r->req;
    char lname[LIM_NAME_LEN + 8], md5[CS_MD5_HEX_LEN + 1], err[256];
    struct stat fst;
    long long size;
    int fd;

    log_escape(q->name, strlen(q->name), lname, sizeof lname);
    if (uh_key(st) < 0) {
        set_reply(r, ST_TRANSIENT, "server configuration error");
        return;
    }
    if (ua_verify(&st->key, q->name, q->max_nbytes, q->xml_signature, q->xml_signature_len) != 0) {
        log_warn("[ip %s] [file %s] rejected: bad xml_signature (max_nbytes %lld)", r->ip, lname,
                 q->max_nbytes);
        set_reply(r, ST_PERMANENT, "bad xml_signature");
        return;
    }
    fd = open_locked(st, r, q->name, lname);
    if (fd < 0)
        return;
    if (fstat(fd, &fst) < 0) {
        log_error("[file %s] fstat failed: %s", lname, strerror(errno));
        set_reply(r, ST_TRANSIENT, "server disk error");
        goto out;
    }
    size = (long long)fst.st_size;
    if (size > q->nbytes) {
        log_warn("[ip %s] [file %s] server holds %lld bytes, more than nbytes %lld", r->ip, lname,
                 size, q->nbytes);
        set_reply(r, ST_PERMANENT, "server holds more bytes than nbytes");
        goto out;
    }
    if (size < q->nbytes) {
        if (q->offset > size) {
            log_info("[ip %s] [file %s] offset %lld beyond the %lld bytes held", r->ip, lname,
                     q->offset, size);
            set_reply(r, ST_TRANSIENT, "offset beyond the bytes held; ask the size again");
            goto out;
        }
        if (append_data(r, fd, &size, lname) < 0)
            goto out;
        if (size < q->nbytes) {
            log_info("[ip %s] [file %s] partial: %lld of %lld bytes", r->ip, lname, size,
                     q->nbytes);
            set_reply(r, ST_TRANSIENT, "incomplete upload");
            goto out;
        }
    }
    /* The file is complete. */
    if (fsync(fd) < 0) {
        log_error("[file %s] fsync failed: %s", lname, strerror(errno));
        set_reply(r, ST_TRANSIENT, "server disk error");
        goto out;
    }
    if (q->has_md5) {
        if (cs_md5_fd(fd, md5, NULL, err, sizeof err) < 0) {
            log_error("[file %s] md5: %s", lname, err);
            set_reply(r, ST_TRANSIENT, "server disk error");
            goto out;
        }
        if (strcmp(md5, q->md5) != 0) {
            log_warn("[ip %s] [file %s] md5 mismatch: got %s, client says %s; deleted", r->ip,
                     lname, md5, q->md5);
            if (unlinkat(st->updir_fd, q->name, 0) < 0)
                log_error("[file %s] cannot delete: %s", lname, strerror(errno));
            set_reply(r, ST_PERMANENT, "md5 mismatch");
            goto out;
        }
    }
    log_info("[ip %s] [file %s] complete: %lld bytes", r->ip, lname, size);
    set_reply(r, ST_OK, "%s", "");
out:
    close(fd);   /* releases the lock */
}

static void handle_get_size(struct uh_state *st, struct uh_request *r)
{
    char lname[LIM_NAME_LEN + 8];
    struct stat sb;

    log_escape(r->req.name, strlen(r->req.name), lname, sizeof lname);
    if (fstatat(st->updir_fd, r->req.name, &sb, AT_SYMLINK_NOFOLLOW) < 0) {
        if (errno != ENOENT) {
            log_error("[file %s] stat failed: %s", lname, strerror(errno));
            set_reply(r, ST_TRANSIENT, "server disk error");
            return;
        }
        sb.st_size = 0;
    } else if (!S_ISREG(sb.st_mode)) {
        log_error("[file %s] is not a regular file in upload_dir", lname);
        set_reply(r, ST_TRANSIENT, "server cannot open the file");
        return;
    }
    log_debug("[ip %s] [file %s] size query: %lld", r->ip, lname, (long long)sb.st_size);
    set_reply(r, ST_OK, "%s", "");
    r->has_size = 1;
    r->file_size = (long long)sb.st_size;
}

/* One request, from body to reply. */
static void handle(struct uh_state *st, struct uh_request *r)
{
    FCGX_ParamArray envp = r->fcgi->envp;
    const char *method = FCGX_GetParam("REQUEST_METHOD", envp);
    const char *ip = FCGX_GetParam("REMOTE_ADDR", envp);
    char err[256];
    long long got;
    int rc;

    log_escape(ip ? ip : "?", ip ? strlen(ip) : 1, r->ip, sizeof r->ip);
    if (!method || strcmp(method, "POST") != 0) {
        set_reply(r, ST_PERMANENT, "POST required");
        return;
    }
    /* The body is at most header + max_nbytes; mod_fcgid's
     * FcgidMaxRequestLen is the effective cap.  Opened first so that the
     * body is drained whatever happens next. */
    rc = fcgi_body_open(&r->body, r->fcgi->in, envp, UPREQ_PREFIX_MAX + UPREQ_NUMBER_MAX);
    if (rc < 0) {
        set_reply(r, ST_PERMANENT, "%s", fio_strerror(rc));
        return;
    }
    r->body_open = 1;
    if (!st->configured && uh_setup(st) < 0) {
        set_reply(r, ST_TRANSIENT, "server configuration error");
        return;
    }
    got = fcgi_body_read(&r->body, r->prefix, sizeof r->prefix);
    if (got < 0) {
        set_reply(r, ST_TRANSIENT, "request body ended early");
        return;
    }
    rc = upload_request_parse(r->prefix, (size_t)got, r->body.length, &r->req, err, sizeof err);
    if (rc < 0) {
        log_info("[ip %s] malformed request: %s", r->ip, err);
        set_reply(r, rc == UPREQ_ERR_ARG ? ST_TRANSIENT : ST_PERMANENT, "malformed request: %s",
                  err);
        return;
    }
    if (r->req.kind == UPREQ_GET_FILE_SIZE)
        handle_get_size(st, r);
    else
        handle_upload(st, r);
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s\n"
            "A FastCGI program run by Apache mod_fcgid: the BOINC file upload handler.\n"
            "It reads the configuration from $LOCSCHED_CONFIG (else ./locsched.conf),\n"
            "stores files in upload_dir and needs KEY_DIR/%s.\n",
            PROG, UA_KEY_FILE);
}

int main(int argc, char **argv)
{
    static struct uh_state st;
    static struct uh_request r;
    FCGX_Request fcgi;

    if (argc > 1) {
        int help = strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0;
        usage(help ? stdout : stderr);
        return help ? 0 : 2;
    }
    signal(SIGPIPE, SIG_IGN);
    log_init(PROG, LOG_INFO, NULL);
    st.updir_fd = -1;
    if (FCGX_IsCGI()) {
        fprintf(stderr, "%s: not started by a FastCGI server (see --help)\n", PROG);
        return 2;
    }
    if (FCGX_Init() != 0 || FCGX_InitRequest(&fcgi, 0, 0) != 0) {
        log_error("cannot initialise libfcgi");
        return 1;
    }
    uh_setup(&st);
    while (FCGX_Accept_r(&fcgi) >= 0) {
        /* fresh per-request state; the big buffers need no clearing */
        r.fcgi = &fcgi;
        r.body_open = 0;
        r.status = ST_TRANSIENT;
        r.has_size = 0;
        r.file_size = 0;
        r.message[0] = '\0';
        memset(&r.req, 0, sizeof r.req);
        memset(&r.body, 0, sizeof r.body);
        handle(&st, &r);
        if (r.body_open && fcgi_body_drain(&r.body, r.io, sizeof r.io, (unsigned long long)-1) < 0)
            log_debug("[ip %s] request body ended early", r.ip);
        send_reply(&r);
        FCGX_Finish_r(&fcgi);
    }
    ua_key_clear(&st.key);
    return 0;
}
