/*
 * code_sign_key.c - the scheduler's copy of keys/code_sign_public, reloaded
 * when the file changes (see code_sign_key.h).
 */
#include "code_sign_key.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/evp.h>

#include "buf.h"
#include "crypto_sign.h"
#include "log.h"

#define NO_KEY_NOTE "This project's server has no code-signing key yet, so it cannot send " \
                    "applications or tasks; your computer will ask again later."

/* Read and check the key file into text; "" when it is absent or unusable
 * (logged, as said by the caller's context). */
static void load_key(const struct code_sign_watch *w, char *text, size_t cap)
{
    char err[256];
    EVP_PKEY *key = NULL;
    size_t len;
    char *data;

    text[0] = '\0';
    if (!w->present) {
        log_warn("no code-signing public key in %s: no work is sent until it is in place",
                 w->path);
        return;
    }
    data = buf_read_file(w->path, &len);
    if (!data) {
        log_error("cannot read the code-signing public key %s: %s: no work is sent", w->path,
                  strerror(errno));
        return;
    }
    if (len >= cap || cs_public_key_parse(data, len, &key, err, sizeof err) < 0) {
        log_error("%s is not a code-signing public key (%s): no work is sent until it is "
                  "replaced", w->path, len >= cap ? "too large" : err);
        free(data);
        return;
    }
    EVP_PKEY_free(key);
    memcpy(text, data, len + 1);
    free(data);
    log_info("code-signing public key loaded from %s", w->path);
}

/* Stat the file; returns 1 when it differs from what was seen last. */
static int file_changed(struct code_sign_watch *w)
{
    struct stat st;
    int present = stat(w->path, &st) == 0, changed;

    if (!present) {
        changed = !w->checked || w->present;
        w->present = 0;
        return changed;
    }
    changed = !w->checked || !w->present || st.st_dev != w->dev || st.st_ino != w->ino ||
              st.st_size != w->size || st.st_mtim.tv_sec != w->mtime.tv_sec ||
              st.st_mtim.tv_nsec != w->mtime.tv_nsec;
    w->present = 1;
    w->dev = st.st_dev;
    w->ino = st.st_ino;
    w->size = st.st_size;
    w->mtime = st.st_mtim;
    return changed;
}

void code_sign_key_init(struct code_sign_watch *w, const char *key_dir, char *text, size_t cap,
                        time_t now)
{
    memset(w, 0, sizeof *w);
    snprintf(w->path, sizeof w->path, "%s/code_sign_public", key_dir);
    file_changed(w);
    w->checked = 1;
    w->checked_at = now;
    load_key(w, text, cap);
}

int code_sign_key_refresh(struct code_sign_watch *w, char *text, size_t cap, time_t now)
{
    char before[CODE_SIGN_KEY_TEXT_MAX];

    if (w->checked && now >= w->checked_at && now - w->checked_at < CODE_SIGN_KEY_RECHECK)
        return 0;
    w->checked_at = now;
    if (!file_changed(w))
        return 0;
    w->checked = 1;
    snprintf(before, sizeof before, "%s", text);
    load_key(w, text, cap);
    return strcmp(before, text) != 0;
}

int code_sign_key_refusal(struct code_sign_watch *w, char *note, size_t cap, time_t now)
{
    size_t used = strlen(note);

    if (used + 1 < cap)
        snprintf(note + used, cap - used, "%s%s", used ? " " : "", NO_KEY_NOTE);
    w->refused++;
    if (w->refusal_logged_at && now >= w->refusal_logged_at &&
        now - w->refusal_logged_at < CODE_SIGN_KEY_LOG_INTERVAL)
        return 0;
    log_warn("no work sent: no usable code-signing public key in %s (clients would refuse "
             "every app file); %lu request(s) refused since the last such line. Copy "
             "code_sign_public there: it is picked up within %d s", w->path, w->refused,
             CODE_SIGN_KEY_RECHECK);
    w->refusal_logged_at = now;
    w->refused = 0;
    return 1;
}
