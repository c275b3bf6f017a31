/*
 * app_cache.c - the scheduler's in-process cache of app versions and
 * batch file lists (see app_cache.h).
 */
#include "app_cache.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "db_locality.h"

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

static int add_active(void *vctx, const struct db_active_batch *b)
{
    struct app_cache *ac = vctx;
    if (b->locality)
        ac->nactive_locality++;
    else
        ac->nactive_plain++;
    if (ac->nactive < APP_CACHE_MAX_BATCHES)
        ac->active[ac->nactive++] = *b;
    return 0;
}

const struct db_active_batch *app_cache_active_batch(const struct app_cache *ac, int batch_id)
{
    int lo = 0, hi = ac->nactive - 1;
    while (lo <= hi) {                 /* listed in id order */
        int mid = lo + (hi - lo) / 2;
        if (ac->active[mid].id == batch_id)
            return &ac->active[mid];
        if (ac->active[mid].id < batch_id)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

int app_cache_refresh(struct app_cache *ac, struct db_conn *c, time_t now)
{
    struct load_ctx x = { 0 };
    int r, i;

    if (ac->loaded_at && now - ac->loaded_at < APP_CACHE_TTL && now >= ac->loaded_at)
        return DB_OK;
    r = db_load_app_versions(c, add_av, &x);
    if (r == DB_OK)
        r = db_load_app_version_files(c, add_avf, &x);
    if (r == DB_OK) {
        ac->nactive_plain = ac->nactive_locality = ac->nactive = 0;
        r = db_active_batches(c, add_active, ac);
    }
    if (r != DB_OK) {
        free_avs(x.avs, x.n);
        return r;
    }
    free_avs(ac->avs, ac->navs);
    ac->avs = x.avs;
    ac->navs = x.n;
    memset(ac->gpu_versions, 0, sizeof ac->gpu_versions);
    for (i = 0; i < ac->navs; i++) {
        int g = db_gpu_type(ac->avs[i].row.coproc_type);
        if (g >= 0)
            ac->gpu_versions[g] = 1;
    }
    ac->loaded_at = now;
    return DB_OK;
}

struct files_ctx {
    struct cached_file *files;
    int n, cap;
    char *pool;
    size_t pool_len, pool_cap;
};

/* Append a string to the pool; returns its offset, or (size_t)-1. */
static size_t pool_add(struct files_ctx *x, const char *s)
{
    size_t len = strlen(s) + 1, off = x->pool_len;
    if (x->pool_len + len > x->pool_cap) {
        size_t cap = x->pool_cap ? x->pool_cap * 2 : 4096;
        char *q;
        while (cap < x->pool_len + len)
            cap *= 2;
        q = realloc(x->pool, cap);
        if (!q)
            return (size_t)-1;
        x->pool = q;
        x->pool_cap = cap;
    }
    memcpy(x->pool + off, s, len);
    x->pool_len += len;
    return off;
}

static int add_file(void *vctx, const struct db_file_row *r)
{
    struct files_ctx *x = vctx;
    struct cached_file *f;
    size_t name_off, url_off;

    if (x->n == x->cap) {
        int cap = x->cap ? x->cap * 2 : 64;
        struct cached_file *q = realloc(x->files, sizeof *q * (size_t)cap);
        if (!q)
            return DB_ERR;
        x->files = q;
        x->cap = cap;
    }
    name_off = pool_add(x, r->name);
    url_off = pool_add(x, r->url);
    if (name_off == (size_t)-1 || url_off == (size_t)-1)
        return DB_ERR;
    f = &x->files[x->n++];
    f->id = r->id;
    f->file_num = r->file_num;
    f->sticky = r->sticky;
    f->nbytes = r->nbytes;
    memcpy(f->md5_cksum, r->md5_cksum, sizeof f->md5_cksum);
    /* offsets for now: the pool may still move */
    f->name = (const char *)(uintptr_t)name_off;
    f->url = (const char *)(uintptr_t)url_off;
    return 0;
}

static const struct batch_files *sort_ctx;

static int cmp_by_name(const void *a, const void *b)
{
    return strcmp(sort_ctx->files[*(const int *)a].name, sort_ctx->files[*(const int *)b].name);
}

static void free_batch_files(struct batch_files *bf)
{
    free(bf->files);
    free(bf->by_name);
    free(bf->pool);
    bf->files = NULL;
    bf->by_name = NULL;
    bf->pool = NULL;
    bf->nfiles = 0;
}

int app_cache_batch_get(struct app_cache *ac, struct db_conn *c, int batch_id, time_t now,
                        const struct batch_files **out)
{
    struct files_ctx x = { 0 };
    struct batch_files *bf = NULL;
    int *by_name;
    int i, r;

    *out = NULL;
    for (i = 0; i < ac->nbatches; i++) {
        if (ac->batches[i].batch_id == batch_id) {
            bf = &ac->batches[i];
            if (now - bf->loaded_at < BATCH_FILES_TTL && now >= bf->loaded_at) {
                bf->last_use = ++ac->batch_uses;
                *out = bf;
                return DB_OK;
            }
            break;
        }
    }
    r = db_load_batch_files(c, batch_id, add_file, &x);
    if (r != DB_OK) {
        free(x.files);
        free(x.pool);
        return r;
    }
    by_name = malloc(sizeof *by_name * (size_t)(x.n ? x.n : 1));
    if (!by_name) {
        free(x.files);
        free(x.pool);
        return DB_ERR;
    }
    if (!bf) {
        if (ac->nbatches == APP_CACHE_MAX_BATCHES) {
            /* evict the least recently used: never one that this request
             * uses, so that its pointers stay valid until the reply is
             * written (a request uses far fewer than APP_CACHE_MAX_BATCHES) */
            int lru = 0;
            for (i = 1; i < ac->nbatches; i++)
                if (ac->batches[i].last_use < ac->batches[lru].last_use)
                    lru = i;
            bf = &ac->batches[lru];
        } else {
            bf = &ac->batches[ac->nbatches++];
            memset(bf, 0, sizeof *bf);
        }
    }
    free_batch_files(bf);
    for (i = 0; i < x.n; i++) {
        x.files[i].name = x.pool + (uintptr_t)x.files[i].name;
        x.files[i].url = x.pool + (uintptr_t)x.files[i].url;
    }
    bf->batch_id = batch_id;
    bf->files = x.files;
    bf->pool = x.pool;
    bf->nfiles = x.n;
    bf->first_num = x.n ? x.files[0].file_num : 0;
    bf->loaded_at = now;
    bf->last_use = ++ac->batch_uses;
    /* file_num must be contiguous for direct indexing */
    for (i = 0; i < x.n; i++) {
        if (x.files[i].file_num != bf->first_num + i) {
            bf->nfiles = i;
            break;
        }
    }
    for (i = 0; i < bf->nfiles; i++)
        by_name[i] = i;
    sort_ctx = bf;
    qsort(by_name, (size_t)bf->nfiles, sizeof *by_name, cmp_by_name);
    sort_ctx = NULL;
    bf->by_name = by_name;
    *out = bf;
    return DB_OK;
}

const struct batch_files *app_cache_batch(struct app_cache *ac, struct db_conn *c, int batch_id,
                                          time_t now)
{
    const struct batch_files *bf;
    return app_cache_batch_get(ac, c, batch_id, now, &bf) == DB_OK ? bf : NULL;
}

const struct cached_file *batch_file(const struct batch_files *bf, int file_num)
{
    int i;
    if (!bf)
        return NULL;
    i = file_num - bf->first_num;
    if (i < 0 || i >= bf->nfiles)
        return NULL;
    return &bf->files[i];
}

const struct cached_file *batch_file_by_name(const struct batch_files *bf, const char *name)
{
    int lo = 0, hi;
    if (!bf || !bf->by_name)
        return NULL;
    hi = bf->nfiles - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        const struct cached_file *f = &bf->files[bf->by_name[mid]];
        int c = strcmp(name, f->name);
        if (c == 0)
            return f;
        if (c < 0)
            hi = mid - 1;
        else
            lo = mid + 1;
    }
    return NULL;
}

void app_cache_invalidate(struct app_cache *ac)
{
    ac->loaded_at = 0;
    ac->cursors_loaded_at = 0;
}

void app_cache_free(struct app_cache *ac)
{
    int i;
    free_avs(ac->avs, ac->navs);
    for (i = 0; i < ac->nbatches; i++)
        free_batch_files(&ac->batches[i]);
    free(ac->cursors);
    memset(ac, 0, sizeof *ac);
}
