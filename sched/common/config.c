/*
 * config.c - the configuration table and the "key = value" file reader.
 *
 * Every setting is one row of config_table: name, type, where it lives in
 * struct config, its default and its range, and one line of help.  The
 * reader refuses unknown keys, repeated keys, malformed numbers and values
 * out of range, naming the file and the line.  config_print_reference()
 * prints the same table, so the documentation cannot drift from the code.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum cfg_type { CT_STR, CT_SECRET, CT_DIR, CT_INT, CT_BOOL, CT_DBL, CT_POLICY, CT_CREATION };

struct cfg_key {
    const char *name;
    enum cfg_type type;
    size_t offset;
    const char *def;        /* default, as text */
    double min, max;        /* range for numbers */
    const char *help;
};

#define OFF(f) offsetof(struct config, f)

static const struct cfg_key config_table[] = {
    { "project_name", CT_STR, OFF(project_name), "locsched project", 0, 0,
      "name shown by clients" },
    { "master_url", CT_STR, OFF(master_url), "", 0, 0,
      "URL volunteers attach to (empty: not sent in replies)" },
    { "download_url", CT_STR, OFF(download_url), "", 0, 0,
      "base URL of the download folder" },
    { "upload_url", CT_STR, OFF(upload_url), "", 0, 0,
      "URL of file_upload_handler (must contain 'file_upload_handler')" },
    { "download_dir", CT_DIR, OFF(download_dir), "download", 0, 0,
      "download folder (relative: to the config file's folder)" },
    { "upload_dir", CT_DIR, OFF(upload_dir), "upload", 0, 0, "upload folder" },
    { "log_dir", CT_DIR, OFF(log_dir), "log", 0, 0, "log folder" },
    { "key_dir", CT_DIR, OFF(key_dir), "keys", 0, 0,
      "folder with code_sign_public and upload_hmac_key" },
    { "record_dir", CT_DIR, OFF(record_dir), "recorded", 0, 0,
      "where record_requests saves request bodies" },

    { "db_name", CT_STR, OFF(db_name), "locsched", 0, 0, "database name" },
    { "db_user", CT_STR, OFF(db_user), "locsched", 0, 0, "database account" },
    { "db_password", CT_SECRET, OFF(db_password), "", 0, 0, "database password" },
    { "db_host", CT_STR, OFF(db_host), "", 0, 0,
      "database host (empty: connect through db_socket)" },
    { "db_socket", CT_DIR, OFF(db_socket), "", 0, 0, "database unix socket" },
    { "db_port", CT_INT, OFF(db_port), "0", 0, 65535, "database TCP port (0: default)" },
    { "db_timeout", CT_INT, OFF(db_timeout), "5", 1, 600,
      "seconds to connect, read or write before giving up; also the server's limit "
      "on one statement (max_statement_time)" },
    { "db_lock_wait_timeout", CT_INT, OFF(db_lock_wait_timeout), "3", 1, 3600,
      "seconds a statement waits for a row lock" },
    { "db_retries", CT_INT, OFF(db_retries), "10", 1, 100,
      "tries of a transaction after a deadlock, lock timeout or lost connection "
      "(all within db_timeout)" },

    { "sched_policy", CT_POLICY, OFF(sched_policy), "ws2", 0, 0,
      "ws2: EDF feasibility check before sending (default); ws1: fill the request" },
    { "max_jobs_per_reply", CT_INT, OFF(max_jobs_per_reply), "16", 1, 32,
      "most jobs sent in one reply (at most LIM_JOBS_PER_REPLY)" },
    { "min_request_delay", CT_INT, OFF(min_request_delay), "7", 0, 86400,
      "seconds a client must wait before its next request" },
    { "overload_request_delay", CT_INT, OFF(overload_request_delay), "300", 1, 86400,
      "request_delay sent when the database is unavailable" },
    { "project_is_down", CT_INT, OFF(project_is_down), "0", 0, 1,
      "1: the scheduler answers every request with <project_is_down/> and "
      "overload_request_delay, touching nothing (so does a file stop_sched next to the "
      "configuration file)" },
    { "no_work_request_delay", CT_INT, OFF(no_work_request_delay), "60", 0, 86400,
      "request_delay sent when work was asked for and none was sent" },
    { "record_requests", CT_BOOL, OFF(record_requests), "0", 0, 1,
      "1: save every scheduler request body in record_dir" },
    { "report_immediately", CT_BOOL, OFF(report_immediately), "1", 0, 1,
      "1: ask clients to report each job as soon as it is done" },
    { "resend_lost_results", CT_BOOL, OFF(resend_lost_results), "1", 0, 1,
      "1: a job the server has in progress on a host that the host no longer lists "
      "is sent again (if it can meet its deadline there) or marked lost at once; "
      "0: it waits for its deadline" },
    { "candidate_factor", CT_INT, OFF(candidate_factor), "2", 1, 16,
      "candidates read per job wanted (room for the EDF check to refuse some)" },
    { "gpu_flops_scale", CT_DBL, OFF(gpu_flops_scale), "0.2", 0.001, 1,
      "fraction of a GPU's peak flops that jobs achieve, before correction" },
    { "log_level", CT_INT, OFF(log_level), "1", 0, 3, "0 debug, 1 info, 2 warn, 3 error" },

    { "team_size_min", CT_INT, OFF(team_size_min), "10", 1, 1000,
      "smallest team a cursor aims for" },
    { "team_size_max", CT_INT, OFF(team_size_max), "20", 1, 1000,
      "largest team of a cursor" },
    { "move_ratio", CT_DBL, OFF(move_ratio), "0.5", 0.01, 1,
      "a host moves from cursor C to D when est(C) < move_ratio * est(D)" },
    { "move_min_interval", CT_INT, OFF(move_min_interval), "3600", 0, 30 * 86400,
      "seconds a host stays in a team before it may move again (hysteresis)" },
    { "host_idle_timeout", CT_INT, OFF(host_idle_timeout), "259200", 60, 365 * 86400,
      "seconds without contact after which a host leaves its team" },
    { "work_cushion", CT_INT, OFF(work_cushion), "100", 1, 1000000,
      "unsent jobs the work generator keeps per cursor, and generates ahead of the "
      "cursor's frontier (the next stretch) with locality_positions" },
    { "locality_window", CT_INT, OFF(locality_window), "32", 1, 128,
      "unsent jobs of the host's cursor, in job order, among which the scheduler "
      "prefers those whose files the host holds" },
    { "locality_file_preference", CT_BOOL, OFF(locality_file_preference), "1", 0, 1,
      "1: offer first the unsent jobs of the host's cursor, anywhere in its range, whose "
      "input files the host holds, and within the window those that need the fewest "
      "downloads; 0: strict job order" },
    { "locality_positions", CT_BOOL, OFF(locality_positions), "1", 0, 1,
      "1: each member of a team works its own stretch of the cursor's jobs, sized by "
      "its share of the team's speed (R members per stretch with R replicas); "
      "0: the team shares one window at the front of its cursor" },
    { "credit_half_life", CT_DBL, OFF(credit_half_life), "604800", 1, 1e9,
      "half-life of expavg_credit, seconds (BOINC: one week)" },

    { "next_rpc_delay", CT_INT, OFF(next_rpc_delay), "7200", 0, 30 * 86400,
      "a host that holds results of this project is asked to call back within this many "
      "seconds even with nothing to do (BOINC's next_rpc_delay; 0: never), so that its "
      "silence says it is gone" },
    { "lost_host_gap_factor", CT_DBL, OFF(lost_host_gap_factor), "1.5", 0.5, 100,
      "a host silent for more than this times (its mean RPC gap + 4 deviations) is "
      "presumed gone: its results in progress get a new replica" },
    { "lost_host_min_silence", CT_INT, OFF(lost_host_min_silence), "14400", 600, 365 * 86400,
      "seconds of silence before any host is presumed gone (the floor)" },
    { "lost_host_new_silence", CT_INT, OFF(lost_host_new_silence), "86400", 600, 365 * 86400,
      "seconds of silence before a host whose rhythm is not known yet is presumed gone" },
    { "tail_budget", CT_DBL, OFF(tail_budget), "0.04", 0, 1,
      "share of a batch's flops that backup replicas of its tail may cost (a replica aborted "
      "before it ran gives its flops back; 0: no backups)" },
    { "tail_gain_ratio", CT_DBL, OFF(tail_gain_ratio), "0.5", 0.01, 1,
      "a backup is sent only if its expected time is at most this times the original's "
      "expected remaining time (at most that time when the batch's budget left covers a "
      "backup of each of its results in progress)" },
    { "tail_deadline_factor", CT_DBL, OFF(tail_deadline_factor), "3", 1, 100,
      "a backup's deadline is this times its expected time (at least an hour, at most the "
      "job's delay_bound)" },
    { "tail_min_reports", CT_INT, OFF(tail_min_reports), "1", 0, 1000000,
      "successful reports a host needs before it gets backups" },
    { "tail_candidates", CT_INT, OFF(tail_candidates), "16", 1, 128,
      "oldest results in progress among which a backup is chosen" },
    { "finish_line_slack", CT_DBL, OFF(finish_line_slack), "1", 0, 100,
      "in a batch's last stretch, a job goes only to a host expected to finish it within "
      "this times the batch's projected time left, plus the job's time on a fast host "
      "(times this too when above 1); 0: off" },
    { "finish_line_young", CT_INT, OFF(finish_line_young), "900", 0, 86400,
      "seconds after its creation during which a batch with no projected end yet goes only "
      "to idle CPUs, one job each; 0: off" },

    { "validator", CT_STR, OFF(validator), "none", 0, 0,
      "none: a reported success is valid and earns credit (no validator runs); identical: "
      "the validator accepts results whose output files are byte-identical; else a command "
      "(words split on blanks, no shell) run with two output files appended, exit 0 when "
      "they match. New projects set identical" },
    { "validate_timeout", CT_INT, OFF(validate_timeout), "60", 1, 86400,
      "seconds the validator command may run before it is killed (the outputs count as "
      "not matching)" },
    { "daily_result_quota", CT_INT, OFF(daily_result_quota), "200", 0, 1000000,
      "jobs a host may get per CPU per day (BOINC's setting; 0: no quota). An invalid "
      "result or a task the client reports as failed halves the host's own quota "
      "(host.max_results_day, at least 1), a valid result (with validator = none: a "
      "success) doubles it back up to this. A host that got its quota is told so and asked "
      "back the next day (UTC)" },
    { "gpu_multiplier", CT_DBL, OFF(gpu_multiplier), "1", 0, 1000,
      "each GPU of a host adds this times the host's quota per CPU to its daily quota "
      "(BOINC's setting)" },

    { "results_dir", CT_DIR, OFF(results_dir), "results", 0, 0,
      "the assimilator copies each finished workunit's canonical outputs into "
      "RESULTS_DIR/BATCH_NAME/ (and error records WU_NAME.error there)" },
    { "assimilate_command", CT_STR, OFF(assimilate_command), "", 0, 0,
      "empty: the assimilator copies outputs into results_dir; else a command (words "
      "split on blanks, no shell) run per finished workunit with WU_NAME BATCH_NAME "
      "success FILE... or WU_NAME BATCH_NAME error REASON appended; exit 0 means done" },
    { "assimilate_timeout", CT_INT, OFF(assimilate_timeout), "600", 1, 86400,
      "seconds assimilate_command may run before it is killed (a failed run)" },
    { "assimilate_tries", CT_INT, OFF(assimilate_tries), "3", 1, 1000,
      "failed runs of assimilate_command for one workunit before the assimilator gives "
      "up on it (writes WU_NAME.error in the batch's results folder, keeps its outputs)" },
    { "archive_dir", CT_DIR, OFF(archive_dir), "archive", 0, 0,
      "where db_purge writes its gzip archives of purged rows (one file per day)" },
    { "purge_min_age_days", CT_DBL, OFF(purge_min_age_days), "7", 0, 36500,
      "db_purge archives and deletes workunits (and their results) assimilated, with "
      "their files deleted, at least this many days ago" },

    { "account_creation", CT_CREATION, OFF(account_creation), "open", 0, 0,
      "who may create an account through create_account.php (the BOINC Manager's "
      "wizard): open (anyone), closed (no one; the administrator's create_account tool "
      "still works), invitation (whoever gives invitation_code)" },
    { "invitation_code", CT_SECRET, OFF(invitation_code), "", 0, 0,
      "with account_creation = invitation, the code a volunteer must give (letters, "
      "digits, '_', '.', '-'; at most 64)" },
    { "terms_of_use_file", CT_DIR, OFF(terms_of_use_file), "", 0, 0,
      "a text file (at most 64 KB) that the BOINC Manager shows a volunteer to accept "
      "before it creates an account (empty: none)" },
    { "min_passwd_length", CT_INT, OFF(min_passwd_length), "6", 1, 64,
      "shortest password the BOINC Manager lets a volunteer choose (it checks it; the "
      "server only sees the hash)" },
    { "min_client_version", CT_INT, OFF(min_client_version), "0", 0, 9999999,
      "oldest BOINC client the project config asks for, as MAJOR*10000 + MINOR*100 + "
      "RELEASE (72000 for 7.20.0; 0: none)" },
    { "create_account_limit", CT_INT, OFF(create_account_limit), "5", 0, 1000000,
      "create_account requests answered per client address in account_rpc_window "
      "(0: none; the others get error -199)" },
    { "lookup_account_limit", CT_INT, OFF(lookup_account_limit), "30", 0, 1000000,
      "lookup_account requests answered per client address in account_rpc_window "
      "(0: none)" },
    { "account_rpc_window", CT_INT, OFF(account_rpc_window), "3600", 1, 30 * 86400,
      "seconds of the window of create_account_limit and lookup_account_limit" },
};

#define NKEYS (sizeof config_table / sizeof config_table[0])

__attribute__((format(printf, 5, 6)))
static int set_error(char *err, size_t errlen, const char *name, int line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line > 0)
        snprintf(err, errlen, "%s:%d: %s", name, line, msg);
    else
        snprintf(err, errlen, "%s: %s", name, msg);
    return -1;
}

/* Resolve a possibly relative path against dir into out. */
static int resolve_dir(char *out, size_t outlen, const char *dir, const char *value)
{
    int n;
    if (value[0] == '\0' || value[0] == '/' || dir[0] == '\0')
        n = snprintf(out, outlen, "%s", value);
    else
        n = snprintf(out, outlen, "%s/%s", dir, value);
    return (n < 0 || (size_t)n >= outlen) ? -1 : 0;
}

/* Write a range bound into out: whole numbers plainly ("2592000", not
 * "2.592e+06"), others with %g.  Returns out. */
static const char *fmt_bound(char *out, size_t outlen, double v)
{
    if (v == floor(v) && fabs(v) < 1e15)
        snprintf(out, outlen, "%.0f", v);
    else
        snprintf(out, outlen, "%g", v);
    return out;
}

/* Store value for key k.  Returns 0, or -1 with a reason in why. */
static int set_value(struct config *cfg, const struct cfg_key *k, const char *value,
                     const char *dir, char *why, size_t whylen)
{
    char *field = (char *)cfg + k->offset;
    char *end;
    double d;
    long l;

    switch (k->type) {
    case CT_STR:
    case CT_SECRET:
        if (strlen(value) >= CONFIG_STR_MAX) {
            snprintf(why, whylen, "value of %s is too long", k->name);
            return -1;
        }
        memcpy(field, value, strlen(value) + 1);
        return 0;
    case CT_DIR:
        if (resolve_dir(field, CONFIG_STR_MAX, dir, value) < 0) {
            snprintf(why, whylen, "path of %s is too long", k->name);
            return -1;
        }
        return 0;
    case CT_CREATION:
        if (strcmp(value, "open") == 0)
            *(int *)field = ACCOUNT_CREATION_OPEN;
        else if (strcmp(value, "closed") == 0)
            *(int *)field = ACCOUNT_CREATION_CLOSED;
        else if (strcmp(value, "invitation") == 0)
            *(int *)field = ACCOUNT_CREATION_INVITATION;
        else {
            snprintf(why, whylen, "%s must be open, closed or invitation", k->name);
            return -1;
        }
        return 0;
    case CT_POLICY:
        if (strcmp(value, "ws1") == 0 || strcmp(value, "WS1") == 0)
            *(int *)field = POLICY_WS1;
        else if (strcmp(value, "ws2") == 0 || strcmp(value, "WS2") == 0)
            *(int *)field = POLICY_WS2;
        else {
            snprintf(why, whylen, "%s must be ws1 or ws2", k->name);
            return -1;
        }
        return 0;
    case CT_INT:
    case CT_BOOL:
        errno = 0;
        l = strtol(value, &end, 10);
        if (value[0] == '\0' || *end != '\0' || errno == ERANGE) {
            snprintf(why, whylen, "%s must be a whole number", k->name);
            return -1;
        }
        if ((double)l < k->min || (double)l > k->max) {
            snprintf(why, whylen, "%s must be between %.0f and %.0f", k->name, k->min, k->max);
            return -1;
        }
        *(int *)field = (int)l;
        return 0;
    case CT_DBL:
        errno = 0;
        d = strtod(value, &end);
        if (value[0] == '\0' || *end != '\0' || errno == ERANGE || !isfinite(d)) {
            snprintf(why, whylen, "%s must be a number", k->name);
            return -1;
        }
        if (d < k->min || d > k->max) {
            char lo[32], hi[32];
            snprintf(why, whylen, "%s must be between %s and %s", k->name,
                     fmt_bound(lo, sizeof lo, k->min), fmt_bound(hi, sizeof hi, k->max));
            return -1;
        }
        *(double *)field = d;
        return 0;
    }
    return -1;
}

static const struct cfg_key *find_key(const char *name, size_t len)
{
    size_t i;
    for (i = 0; i < NKEYS; i++)
        if (strlen(config_table[i].name) == len && memcmp(config_table[i].name, name, len) == 0)
            return &config_table[i];
    return NULL;
}

static void apply_defaults(struct config *cfg, const char *dir)
{
    size_t i;
    char why[128];
    for (i = 0; i < NKEYS; i++)
        (void)set_value(cfg, &config_table[i], config_table[i].def, dir, why, sizeof why);
}

int config_project_stopped(const struct config *cfg)
{
    char path[CONFIG_STR_MAX + 32];
    struct stat st;

    if (cfg->project_is_down)
        return 1;
    snprintf(path, sizeof path, "%s/%s", cfg->config_dir, STOP_SCHED_FILE);
    return stat(path, &st) == 0;
}

int config_validating(const struct config *cfg)
{
    return strcmp(cfg->validator, "none") != 0;
}

void config_defaults(struct config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    apply_defaults(cfg, "");
}

int config_parse(struct config *cfg, const char *text, size_t len, const char *name,
                 const char *dir, char *err, size_t errlen)
{
    unsigned char seen[NKEYS];
    size_t pos = 0;
    int line = 0;

    memset(cfg, 0, sizeof *cfg);
    memset(seen, 0, sizeof seen);
    if (strlen(dir) >= sizeof cfg->config_dir)
        return set_error(err, errlen, name, 0, "folder name too long");
    memcpy(cfg->config_dir, dir, strlen(dir) + 1);
    apply_defaults(cfg, dir);

    while (pos < len) {
        const char *p = text + pos, *eol, *eq, *ks, *ke, *vs, *ve;
        const struct cfg_key *k;
        char value[CONFIG_STR_MAX], why[256];
        size_t linelen;

        eol = memchr(p, '\n', len - pos);
        linelen = eol ? (size_t)(eol - p) : len - pos;
        pos += linelen + (eol ? 1 : 0);
        line++;
        if (memchr(p, '\0', linelen))
            return set_error(err, errlen, name, line, "NUL byte in line");
        ks = p;
        ve = p + linelen;
        while (ks < ve && (*ks == ' ' || *ks == '\t' || *ks == '\r'))
            ks++;
        if (ks == ve || *ks == '#')
            continue;
        eq = memchr(ks, '=', (size_t)(ve - ks));
        if (!eq)
            return set_error(err, errlen, name, line, "expected 'name = value'");
        ke = eq;
        while (ke > ks && (ke[-1] == ' ' || ke[-1] == '\t'))
            ke--;
        k = find_key(ks, (size_t)(ke - ks));
        if (!k) {
            char key[64];
            size_t kl = (size_t)(ke - ks) < sizeof key - 1 ? (size_t)(ke - ks) : sizeof key - 1;
            size_t i;
            memcpy(key, ks, kl);
            key[kl] = '\0';
            for (i = 0; i < kl; i++)
                if ((unsigned char)key[i] < 0x20 || (unsigned char)key[i] >= 0x7f)
                    key[i] = '?';
            return set_error(err, errlen, name, line, "unknown setting '%s'", key);
        }
        if (seen[k - config_table])
            return set_error(err, errlen, name, line, "'%s' is set twice", k->name);
        seen[k - config_table] = 1;
        vs = eq + 1;
        while (vs < ve && (*vs == ' ' || *vs == '\t'))
            vs++;
        while (ve > vs && (ve[-1] == ' ' || ve[-1] == '\t' || ve[-1] == '\r'))
            ve--;
        if ((size_t)(ve - vs) >= sizeof value)
            return set_error(err, errlen, name, line, "value of '%s' is too long", k->name);
        memcpy(value, vs, (size_t)(ve - vs));
        value[ve - vs] = '\0';
        if (set_value(cfg, k, value, dir, why, sizeof why) < 0)
            return set_error(err, errlen, name, line, "%s", why);
    }
    if (cfg->team_size_min > cfg->team_size_max)
        return set_error(err, errlen, name, 0, "team_size_min is larger than team_size_max");
    if (cfg->account_creation == ACCOUNT_CREATION_INVITATION &&
        (!cfg->invitation_code[0] || strlen(cfg->invitation_code) > 64 ||
         strspn(cfg->invitation_code, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                      "0123456789_.-") != strlen(cfg->invitation_code)))
        return set_error(err, errlen, name, 0, "account_creation = invitation needs an "
                         "invitation_code of 1 to 64 letters, digits, '_', '.' or '-'");
    return 0;
}

int config_load(struct config *cfg, const char *path, char *err, size_t errlen)
{
    FILE *f;
    char *text;
    char dir[CONFIG_STR_MAX];
    const char *slash;
    size_t n;
    long size;
    int r;

    f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || size > 1024 * 1024 ||
        fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        snprintf(err, errlen, "%s: unreadable or larger than 1 MiB", path);
        return -1;
    }
    text = malloc((size_t)size + 1);
    if (!text) {
        fclose(f);
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    n = fread(text, 1, (size_t)size, f);
    fclose(f);
    slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    r = config_parse(cfg, text, n, path, dir, err, errlen);
    free(text);
    return r;
}

const char *config_locate(const char *explicit_path)
{
    const char *env;
    if (explicit_path && explicit_path[0])
        return explicit_path;
    env = getenv("LOCSCHED_CONFIG");
    if (env && env[0])
        return env;
    return "locsched.conf";
}

void config_print_reference(FILE *out)
{
    static const char *const type_names[] = { "text", "secret", "path", "integer",
                                              "0 or 1", "number", "ws1 or ws2",
                                              "open, closed or invitation" };
    size_t i;
    fprintf(out, "| name | type | default | range | meaning |\n|---|---|---|---|---|\n");
    for (i = 0; i < NKEYS; i++) {
        const struct cfg_key *k = &config_table[i];
        char range[80] = "", lo[32], hi[32];
        if (k->type == CT_INT || k->type == CT_DBL)
            snprintf(range, sizeof range, "%s to %s", fmt_bound(lo, sizeof lo, k->min),
                     fmt_bound(hi, sizeof hi, k->max));
        fprintf(out, "| %s | %s | %s | %s | %s |\n", k->name, type_names[k->type],
                k->type == CT_SECRET ? "" : k->def, range, k->help);
    }
}
