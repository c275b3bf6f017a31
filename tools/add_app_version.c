/*
 * add_app_version.c - register an app version: stage its files into the
 * download folder, sign them with the code-signing key (or take
 * signatures made offline), and record app, platform, version and files
 * in one transaction.  Staged files are removed if anything fails.
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "crypto_sign.h"
#include "db_admin.h"
#include "tool_common.h"

#define MAX_FILES 16

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
            "the offline machine that holds the private key (see doc/keys.md).\n"
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
    EVP_PKEY *pkey = NULL;
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
            FILE *f;
            size_t n;
            snprintf(sigpath, sizeof sigpath, "%s/%s.sig", sigdir, staged[i] +
                     strlen(cfg.download_dir) + 1);
            f = fopen(sigpath, "r");
            if (!f) {
                fprintf(stderr, "add_app_version: no signature %s\n", sigpath);
                goto fail;
            }
            n = fread(sigs[i], 1, sizeof sigs[i] - 1, f);
            fclose(f);
            sigs[i][n] = '\0';
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
    db_close(db);
    return 0;

fail:
    for (i = 0; i < nstaged; i++)
        unlink(staged[i]);
    EVP_PKEY_free(pkey);
    db_close(db);
    return 1;
}
