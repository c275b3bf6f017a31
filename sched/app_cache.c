/*
 * app_cache.c - the scheduler's in-process cache of app versions and
 * batch file lists (see app_cache.h).
 */
#include "app_cache.h"

#include <stdlib.h>
#include <string.h>

struct load_ctx {
    struct app_version *avs;
    int n, cap;
};

static int add_av(void *vctx, const struct db_app_version_row *r)
{
    struct load_ctx *x = vctx;
    if (x->n == x->cap) {
        int cap = x->cap ? x->cap * 2 : 16;
        struct app_version *q = realloc(x->avs, sizeof *q * (size_t)cap);
        if (!q)
            return DB_ERR;
        x->avs = q;
        x->cap = cap;
    }
    memset(&x->avs[x->n], 0, sizeof x->avs[x->n]);
    x->avs[x->n++].row = *r;
    return 0;
}

static int add_avf(void *vctx, const struct db_app_version_file_row *r)
{
    struct load_ctx *x = vctx;
    int i;
    for (i = 0; i < x->n; i++) {
        struct app_version *av = &x->avs[i];
        if (av->row.id == r->app_version_id) {
            struct db_app_version_file_row *q =
                realloc(av->files, sizeof *q * (size_t)(av->nfiles + 1));
            if (!q)
                return DB_ERR;
            av->files = q;
            av->files[av->nfiles++] = *r;
            return 0;
        }
    }
    return 0;   /* file of a deprecated version: ignore */
}

static void free_avs(struct app_version *avs, int n)
{
    int i;
    for (i = 0; i < n; i++)
        free(avs[i].files);
    free(avs);
}

int app_cache_refresh(struct app_cache *ac, struct db_conn *c, time_t now)
{
    struct load_ctx x = { 0 };
    int r;

    if (ac->loaded_at && now - ac->loaded_at < APP_CACHE_TTL && now >= ac->loaded_at)
        return DB_OK;
    r = db_load_app_versions(c, add_av, &x);
    if (r == DB_OK)
        r = db_load_app_version_files(c, add_avf, &x);
    if (r != DB_OK) {
        free_avs(x.avs, x.n);
        return r;
    }
    free_avs(ac->avs, ac->navs);
    ac->avs = x.avs;
    ac->navs = x.n;
    ac->loaded_at = now;
    return DB_OK;
}

struct files_ctx {
    struct db_file_row *files;
    int n, cap;
};

static int add_file(void *vctx, const struct db_file_row *r)
{
    struct files_ctx *x = vctx;
    if (x->n == x->cap) {
        int cap = x->cap ? x->cap * 2 : 64;
        struct db_file_row *q = realloc(x->files, sizeof *q * (size_t)cap);
        if (!q)
            return DB_ERR;
        x->files = q;
        x->cap = cap;
    }
    x->files[x->n++] = *r;
    return 0;
}

const struct batch_files *app_cache_batch(struct app_cache *ac, struct db_conn *c, int batch_id,
                                          time_t now)
{
    struct files_ctx x = { 0 };
    struct batch_files *bf = NULL;
    int i;

    for (i = 0; i < ac->nbatches; i++) {
        if (ac->batches[i].batch_id == batch_id) {
            bf = &ac->batches[i];
            if (now - bf->loaded_at < 10 * APP_CACHE_TTL && now >= bf->loaded_at)
                return bf;
            break;
        }
    }
    if (db_load_batch_files(c, batch_id, add_file, &x) != DB_OK) {
        free(x.files);
        return NULL;
    }
    if (!bf) {
        if (ac->nbatches == APP_CACHE_MAX_BATCHES) {
            /* evict the oldest */
            int oldest = 0;
            for (i = 1; i < ac->nbatches; i++)
                if (ac->batches[i].loaded_at < ac->batches[oldest].loaded_at)
                    oldest = i;
            bf = &ac->batches[oldest];
        } else {
            bf = &ac->batches[ac->nbatches++];
            memset(bf, 0, sizeof *bf);
        }
    }
    free(bf->files);
    bf->batch_id = batch_id;
    bf->files = x.files;
    bf->nfiles = x.n;
    bf->first_num = x.n ? x.files[0].file_num : 0;
    bf->loaded_at = now;
    /* file_num must be contiguous for direct indexing */
    for (i = 0; i < x.n; i++) {
        if (x.files[i].file_num != bf->first_num + i) {
            bf->nfiles = i;
            break;
        }
    }
    return bf;
}

const struct db_file_row *batch_file(const struct batch_files *bf, int file_num)
{
    int i;
    if (!bf)
        return NULL;
    i = file_num - bf->first_num;
    if (i < 0 || i >= bf->nfiles)
        return NULL;
    return &bf->files[i];
}

void app_cache_free(struct app_cache *ac)
{
    int i;
    free_avs(ac->avs, ac->navs);
    for (i = 0; i < ac->nbatches; i++)
        free(ac->batches[i].files);
    memset(ac, 0, sizeof *ac);
}
