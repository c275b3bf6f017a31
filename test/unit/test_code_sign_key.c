/*
 * test_code_sign_key.c - the scheduler's code-signing key watch
 * (sched/scheduler/code_sign_key.c), without servers: a key file that
 * appears, changes, turns malformed or goes away is picked up at the next
 * check (at most CODE_SIGN_KEY_RECHECK seconds later) without a restart,
 * the file is not looked at more often than that, and the "no key" line is
 * logged at most once a minute however many requests are refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "code_sign_key.h"
#include "crypto_sign.h"
#include "log.h"
#include "tap.h"

static char dir[256], path[300];

static void make_key_text(char *out, size_t cap)
{
    EVP_PKEY *key = NULL;
    char err[256];
    if (cs_generate_key(512, &key, err, sizeof err) < 0 ||
        cs_public_key_text(key, out, cap, err, sizeof err) < 0) {
        printf("Bail out! cannot make a key: %s\n", err);
        exit(1);
    }
    EVP_PKEY_free(key);
}

/* Write the key file through a new inode, as cp to a new name and mv do. */
static void put_file(const char *text)
{
    char tmp[320];
    FILE *f;
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    f = fopen(tmp, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
        printf("Bail out! cannot write %s\n", path);
        exit(1);
    }
}

/* Rewrite the file in place (same inode), as "cat key > file" does. */
static void overwrite_in_place(const char *text)
{
    FILE *f = fopen(path, "r+");
    if (!f || ftruncate(fileno(f), 0) != 0 || fputs(text, f) < 0 || fclose(f) != 0) {
        printf("Bail out! cannot rewrite %s\n", path);
        exit(1);
    }
}

static int count_lines(FILE *f, const char *needle)
{
    char line[2048];
    int n = 0;
    fflush(f);
    rewind(f);
    while (fgets(line, sizeof line, f))
        if (strstr(line, needle))
            n++;
    fseek(f, 0, SEEK_END);
    return n;
}

int main(void)
{
    struct code_sign_watch w;
    char text[CODE_SIGN_KEY_TEXT_MAX], key1[CS_PUBKEY_TEXT_MAX], key2[CS_PUBKEY_TEXT_MAX];
    char note[256];
    time_t t = 1000000;
    FILE *logf = tmpfile();
    int i, logged;

    if (!logf) {
        printf("Bail out! no tmpfile\n");
        return 1;
    }
    log_init("test", LOG_DEBUG, logf);
    snprintf(dir, sizeof dir, "%s/csk.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        printf("Bail out! mkdtemp failed\n");
        return 1;
    }
    snprintf(path, sizeof path, "%s/code_sign_public", dir);
    make_key_text(key1, sizeof key1);
    make_key_text(key2, sizeof key2);

    /* the guide's order: the scheduler starts before the key is there */
    strcpy(text, "stale");
    code_sign_key_init(&w, dir, text, sizeof text, t);
    TAP_EQ_STR(text, "", "no file at start: no key");
    TAP_EQ_INT(count_lines(logf, "no code-signing public key in"), 1, "the start says so once");

    put_file(key1);
    TAP_EQ_INT(code_sign_key_refresh(&w, text, sizeof text, t + 1), 0,
               "within the recheck interval the file is not looked at");
    TAP_EQ_STR(text, "", "still no key 1 s later");
    TAP_EQ_INT(code_sign_key_refresh(&w, text, sizeof text, t + CODE_SIGN_KEY_RECHECK), 1,
               "after %d s the new file is loaded", CODE_SIGN_KEY_RECHECK);
    TAP_EQ_STR(text, key1, "the key is the file's text");
    TAP_EQ_INT(count_lines(logf, "code-signing public key loaded"), 1, "the load is logged");

    t += CODE_SIGN_KEY_RECHECK;
    TAP_EQ_INT(code_sign_key_refresh(&w, text, sizeof text, t + CODE_SIGN_KEY_RECHECK), 0,
               "an unchanged file is not read again");
    t += CODE_SIGN_KEY_RECHECK;

    put_file(key2);
    TAP_EQ_INT(code_sign_key_refresh(&w, text, sizeof text, t + CODE_SIGN_KEY_RECHECK), 1,
               "a replaced file (new inode) is reloaded");
    TAP_EQ_STR(text, key2, "the key is the new one");
    t += CODE_SIGN_KEY_RECHECK;

    overwrite_in_place(key1);
    TAP_EQ_INT(code_sign_key_refresh(&w, text, sizeof text, t + CODE_SIGN_KEY_RECHECK), 1,
               "a file rewritten in place (same inode) is reloaded");
    TAP_EQ_STR(text, key1, "the key is the rewritten one");
    t += CODE_SIGN_KEY_RECHECK;

    put_file("1024\nnot a key\n");
    TAP_EQ_INT(code_sign_key_refresh(&w, text, sizeof text, t + CODE_SIGN_KEY_RECHECK), 1,
               "a malformed file is noticed");
    TAP_EQ_STR(text, "", "a malformed file counts as no key");
    TAP_EQ_INT(count_lines(logf, "is not a code-signing public key"), 1, "and is logged");
    t += CODE_SIGN_KEY_RECHECK;

    put_file(key2);
    code_sign_key_refresh(&w, text, sizeof text, t + CODE_SIGN_KEY_RECHECK);
    TAP_EQ_STR(text, key2, "a good file after a malformed one is loaded");
    t += CODE_SIGN_KEY_RECHECK;

    unlink(path);
    TAP_EQ_INT(code_sign_key_refresh(&w, text, sizeof text, t + CODE_SIGN_KEY_RECHECK), 1,
               "a removed file is noticed");
    TAP_EQ_STR(text, "", "no file: no key");
    t += CODE_SIGN_KEY_RECHECK;

    /* refusals: a message for each request, a log line once a minute */
    note[0] = '\0';
    logged = code_sign_key_refusal(&w, note, sizeof note, t);
    TAP_EQ_INT(logged, 1, "the first refusal is logged");
    TAP_CHECK(strstr(note, "no code-signing key") != NULL, "the volunteer's note says why: %s",
              note);
    logged = 0;
    for (i = 1; i < 600; i++) {
        note[0] = '\0';
        logged += code_sign_key_refusal(&w, note, sizeof note, t + i / 10);
    }
    TAP_EQ_INT(logged, 0, "600 refusals within a minute: no further line");
    TAP_EQ_INT(code_sign_key_refusal(&w, note, sizeof note, t + CODE_SIGN_KEY_LOG_INTERVAL), 1,
               "a minute later: one line");
    TAP_EQ_INT(count_lines(logf, "600 request(s) refused since the last such line"), 1,
               "which counts the requests refused meanwhile");
    strcpy(note, "Another note.");
    code_sign_key_refusal(&w, note, sizeof note, t + 61);
    TAP_CHECK(strncmp(note, "Another note. This project", 26) == 0,
              "an earlier note is kept: %s", note);

    unlink(path);
    rmdir(dir);
    return tap_done();
}
