/*
 * log.h - graded, printf-checked logging with entity ids.
 *
 * Lines go to one stream (stderr by default, which Apache's error log or
 * a daemon's log file captures): "TIME LEVEL [prog] message".  Callers put
 * entity ids in the message: "[host#12] [result#4031] ...".  Untrusted
 * strings must pass through log_escape() first.
 */
#ifndef LOCSCHED_LOG_H
#define LOCSCHED_LOG_H

#include <stddef.h>
#include <stdio.h>

enum log_level { LOG_DEBUG = 0, LOG_INFO = 1, LOG_WARN = 2, LOG_ERROR = 3 };

/* Set the program name shown in every line, the minimum level and the
 * stream (NULL = stderr). */
void log_init(const char *prog, int min_level, FILE *stream);
void log_set_level(int min_level);

__attribute__((format(printf, 2, 3)))
void log_msg(int level, const char *fmt, ...);

#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_INFO, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_WARN, __VA_ARGS__)
#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)

/* Copy at most out_len-1 bytes of untrusted text into out, replacing
 * control and non-ASCII bytes by '?' and truncating long text with "...".
 * Returns out. */
char *log_escape(const char *in, size_t in_len, char *out, size_t out_len);

#endif /* LOCSCHED_LOG_H */
