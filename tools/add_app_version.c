/*
 * add_app_version.c - register an app version: stage its files into the
 * download folder, sign them with the code-signing key (or take
 * signatures made offline), and record app, platform, version and files
 * in one transaction.  Staged files are removed if anything fails.
 *
 * Every signature is checked before anything is registered: an empty one
 * (what a failed sign_file leaves behind) is refused, and when the
 * project's keys/code_sign_public is in place, so is one that does not
 * verify against it (clients would refuse the file).
 */
#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "buf.h"
#include "crypto_sign.h"
#include "db_admin.h"
#include "tool_common.h"

#define MAX_FILES 16

/* The project's code-signing public key, if keys/code_sign_public exists:
 * 0 with *out set (NULL when the file is absent), -1 when it is there but
 * unreadable or malformed (message printed). */
static int load_project_public_key(const char *key_dir, EVP_PKEY **out)
{
    char path[CONFIG_STR_MAX + 64], err[512];
    size_t len;
    char *text;

    *out = NULL;
    snprintf(path, sizeof path, "%s/code_sign_public", key_dir);
    text = buf_read_file(path, &len);
    if (!text) {
        if (errno == ENOENT) {
            fprintf(stderr, "add_app_version: note: %s is not in place yet: the signatures are "
                    "not checked against it\n", path);
            return 0;
        }
        fprintf(stderr, "add_app_version: cannot read %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (cs_public_key_parse(text, len, out, err, sizeof err) < 0) {
        fprintf(stderr, "add_app_version: %s is not a code-signing public key: %s\n", path, err);
        free(text);
        return -1;
    }
    free(text);
    return 0;
}

/* Read the signature file path into sig (cap bytes).  Returns 0, or -1
 * with a message printed when it is missing, empty or too large. */
static int read_signature(const char *path, char *sig, size_t cap)
{
    FILE *f = fopen(path, "r");
    size_t n, i;
    int more;

    if (!f) {
        fprintf(stderr, "add_app_version: no signature %s: %s\n", path, strerror(errno));
        return -1;
    }
    n = fread(sig, 1, cap - 1, f);
    more = fgetc(f) != EOF;
    fclose(f);
    sig[n] = '\0';
    if (more) {
        fprintf(stderr, "add_app_version: signature %s is larger than a signature can be "
                "(%zu bytes at most): not registered\n", path, cap - 1);
        return -1;
    }
    for (i = 0; i < n && isspace((unsigned char)sig[i]); i++)
        ;
    if (i == n) {
        fprintf(stderr, "add_app_version: signature %s is empty (did sign_file fail?): "
                "not registered\n", path);
        return -1;
    }
    return 0;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: add_app_version [--config FILE] --app NAME --version N --file PATH [--file PATH...]\n"
            "       [--platform P] [--plan-class C] [--avg-ncpus X] [--coproc TYPE:COUNT]\n"
            "       [--flops-scale S] [--api-version V] [--friendly-name TEXT]\n"
            "       (--key PRIVATE.pem | --signatures DIR)\n"
            "\n"
            "The first --file is the main program.  Files are copied into the download\n"
            "folder under their own names.  Each needs a BOINC code signature: made here\n"
            "with --key (a sandbox or test project), or read from DIR/NAME.sig, made on\n"
            "the offline machine that holds the private key (see doc/keys.md).  An empty\n"
            "signature, or one that does not verify against the project's\n"
            "keys/code_sign_public (when it is in place), is refused.\n"
            "Defaults: platform x86_64-pc-linux-gnu, avg_ncpus 1, no coprocessor.\n");
}

int main(int argc, char **argv)
{
    const char *config = NULL, *app = NULL, *platform = "x86_64-pc-linux-gnu";
    const char *plan_class = "", *coproc = NULL, *api = "", *friendly = "", *key = NULL;
    const char *sigdir = NULL, *files[MAX_FILES];
    char staged[MAX_FILES][CONFIG_STR_MAX + 256], sigs[MAX_FILES][CS_SIG_TEXT_MAX];
    char md5[MAX_FILES][CS_MD5_HEX_LEN + 1], url[1200], coproc_type[64] = "", err[512];
    long long sizes[MAX_FILES];
    double avg_ncpus = 1, coproc_count = 0, flops_scale = 1;
    int version = -1, nfiles = 0, nstaged = 0, i, r, appid, platid, avid;
    struct config cfg;
    struct db_conn *db = NULL;
    EVP_PKEY *pkey = NULL, *pubkey = NULL;
    struct db_app_version_new v;
    int now = (int)time(NULL);

    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        }
        if (!val) {
            fprintf(stderr, "add_app_version: %s needs a value\n", a);
            return 2;
        }
        i++;
        if (strcmp(a, "--config") == 0) config = val;
        else if (strcmp(a, "--app") == 0) app = val;
        else if (strcmp(a, "--version") == 0) {
            long num;
            if (tool_parse_long(val, 0, 2000000000, &num) < 0) {
                fprintf(stderr, "add_app_version: --version wants a whole number, not '%s'\n",
                        val);
                return 2;
            }
            version = (int)num;
        }
        else if (strcmp(a, "--platform") == 0) platform = val;
        else if (strcmp(a, "--plan-class") == 0) plan_class = val;
        else if (strcmp(a, "--avg-ncpus") == 0) {
            if (tool_parse_double(val, 1e-6, 1024, &avg_ncpus) < 0) {
                fprintf(stderr, "add_app_version: --avg-ncpus wants a number in (0, 1024], "
                                "not '%s'\n", val);
                return 2;
            }
        }
        else if (strcmp(a, "--coproc") == 0) coproc = val;
        else if (strcmp(a, "--flops-scale") == 0) {
            if (tool_parse_double(val, 1e-6, 1000, &flops_scale) < 0) {
                fprintf(stderr, "add_app_version: --flops-scale wants a number in (0, 1000], "
                                "not '%s'\n", val);
                return 2;
            }
        }
        else if (strcmp(a, "--api-version") == 0) api = val;
        else if (strcmp(a, "--friendly-name") == 0) friendly = val;
        else if (strcmp(a, "--key") == 0) key = val;
        else if (strcmp(a, "--signatures") == 0) sigdir = val;
        else if (strcmp(a, "--file") == 0) {
            if (nfiles == MAX_FILES) {
                fprintf(stderr, "add_app_version: at most %d files\n", MAX_FILES);
                return 2;
            }
            files[nfiles++] = val;
        } else {
            fprintf(stderr, "add_app_version: unknown argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (!app || version < 0 || nfiles == 0 || (!key && !sigdir)) {
        usage(stderr);
        return 2;
    }
    if (!(avg_ncpus > 0 && avg_ncpus <= 1024) || !(flops_scale > 0 && flops_scale <= 1000)) {
        fprintf(stderr, "add_app_version: --avg-ncpus and --flops-scale must be positive\n");
        return 2;
    }
    if (coproc) {
        const char *colon = strchr(coproc, ':');
        if (!colon || colon == coproc || (size_t)(colon - coproc) >= sizeof coproc_type ||
            tool_parse_double(colon + 1, 1e-6, 1024, &coproc_count) < 0) {
            fprintf(stderr, "add_app_version: --coproc wants TYPE:COUNT, e.g. NVIDIA:1\n");
            return 2;
        }
        memcpy(coproc_type, coproc, (size_t)(colon - coproc));
        coproc_type[colon - coproc] = '\0';
    }
    if (tool_open("add_app_version", config, &cfg, &db) < 0)
        return 1;
    if (key && cs_private_key_load(key, &pkey, err, sizeof err) < 0) {
        fprintf(stderr, "add_app_version: %s\n", err);
        goto fail;
    }
    if (load_project_public_key(cfg.key_dir, &pubkey) < 0)
        goto fail;
    for (i = 0; i < nfiles; i++) {
        char *copy = strdup(files[i]);
        const char *base = copy ? basename(copy) : NULL;
        if (!base) {
            free(copy);
            goto fail;
        }
        snprintf(staged[i], sizeof staged[i], "%s/%s", cfg.download_dir, base);
        free(copy);
        if (cs_md5_file(files[i], md5[i], &sizes[i], err, sizeof err) < 0) {
            fprintf(stderr, "add_app_version: %s\n", err);
            goto fail;
        }
        if (pkey) {
            if (cs_sign_md5(pkey, md5[i], sigs[i], sizeof sigs[i], err, sizeof err) < 0) {
                fprintf(stderr, "add_app_version: signing %s: %s\n", files[i], err);
                goto fail;
            }
        } else {
            char sigpath[CONFIG_STR_MAX + 300];
            snprintf(sigpath, sizeof sigpath, "%s/%s.sig", sigdir, staged[i] +
                     strlen(cfg.download_dir) + 1);
            if (read_signature(sigpath, sigs[i], sizeof sigs[i]) < 0)
                goto fail;
        }
        if (pubkey && cs_verify_md5_key(pubkey, sigs[i], strlen(sigs[i]), md5[i], err,
                                        sizeof err) < 0) {
            fprintf(stderr, "add_app_version: the signature of %s does not verify against "
                    "%s/code_sign_public (%s): signed with another key, or of another file? "
                    "Not registered\n", files[i], cfg.key_dir, err);
            goto fail;
        }
        if (tool_copy_file("add_app_version", files[i], staged[i]) < 0)
            goto fail;
        nstaged = i + 1;
    }

    r = db_app_get_or_create(db, app, friendly, now, &appid);
    if (r == DB_OK)
        r = db_platform_get_or_create(db, platform, now, &platid);
    if (r == DB_OK) {
        memset(&v, 0, sizeof v);
        v.appid = appid;
        v.platformid = platid;
        v.version_num = version;
        v.plan_class = plan_class;
        v.coproc_type = coproc_type;
        v.coproc_count = coproc_count;
        v.avg_ncpus = avg_ncpus;
        v.flops_scale = flops_scale;
        v.api_version = api;
        r = db_app_version_create(db, &v, now, &avid);
    }
    for (i = 0; r == DB_OK && i < nfiles; i++) {
        const char *name = staged[i] + strlen(cfg.download_dir) + 1;
        snprintf(url, sizeof url, "%s/%s", cfg.download_url, name);
        r = db_app_version_file_add(db, avid, i, name, "", url, (double)sizes[i], md5[i],
                                    sigs[i], i == 0, 0);
    }
    if (r == DB_OK)
        r = db_commit(db);
    if (r != DB_OK) {
        fprintf(stderr, "add_app_version: %s\n",
                r == DB_DUP ? "that app version exists already" : db_error(db));
        db_rollback(db);
        goto fail;
    }
    printf("app version %d: %s %d %s%s%s\n", avid, app, version, platform,
           plan_class[0] ? " " : "", plan_class);
    EVP_PKEY_free(pkey);
    EVP_PKEY_free(pubkey);
    db_close(db);
    return 0;

fail:
    for (i = 0; i < nstaged; i++)
        unlink(staged[i]);
    EVP_PKEY_free(pkey);
    EVP_PKEY_free(pubkey);
    db_close(db);
    return 1;
}
