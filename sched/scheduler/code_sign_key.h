/*
 * code_sign_key.h - the scheduler's copy of the project's code-signing
 * public key (KEY_DIR/code_sign_public), kept in step with the file.
 *
 * The key is sent to clients (<code_sign_key>) so that they can check the
 * signatures of app files.  An administrator puts it in place after Apache
 * has started the scheduler (the guide's order), or replaces it, without
 * restarting anything: each process stats the file at most every
 * CODE_SIGN_KEY_RECHECK seconds and reads it again when its inode, size
 * or mtime changed.  A file that does not parse as a BOINC public key
 * counts as no key.
 *
 * Without a key no app version may be sent: every app version file is
 * signed and the client refuses it without the key.  code_sign_key_refusal()
 * says so to the volunteer and, at most once a minute, to the log.
 */
#ifndef LOCSCHED_CODE_SIGN_KEY_H
#define LOCSCHED_CODE_SIGN_KEY_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

/* Seconds between two stats of the key file in one process. */
#define CODE_SIGN_KEY_RECHECK 5
/* Seconds between two log lines about requests refused for want of a key. */
#define CODE_SIGN_KEY_LOG_INTERVAL 60
/* Capacity of the key text (a 1024-bit key is about 530 bytes). */
#define CODE_SIGN_KEY_TEXT_MAX 2048

struct code_sign_watch {
    char path[4200];
    int checked;              /* stat done at least once */
    time_t checked_at;
    int present;              /* the file existed at the last stat */
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    time_t refusal_logged_at; /* 0: never */
    unsigned long refused;    /* requests refused since the last log line */
};

/* Point the watch at KEY_DIR/code_sign_public and load it now into text
 * (cap bytes; "" when absent or unusable, with a warning logged). */
void code_sign_key_init(struct code_sign_watch *w, const char *key_dir, char *text, size_t cap,
                        time_t now);

/* Stat the file if CODE_SIGN_KEY_RECHECK seconds passed since the last
 * stat; reload text when the file appeared, changed or went away (logged).
 * Returns 1 when text was changed, else 0. */
int code_sign_key_refresh(struct code_sign_watch *w, char *text, size_t cap, time_t now);

/* A request that wanted work is refused for want of a key: write the
 * volunteer's message into note (cap bytes; appended to what is there),
 * and log why if the last such line is CODE_SIGN_KEY_LOG_INTERVAL seconds
 * old.  Returns 1 when it logged. */
int code_sign_key_refusal(struct code_sign_watch *w, char *note, size_t cap, time_t now);

#endif
