/*
 * log.c - graded logging for locsched's programs (see log.h).
 *
 * One line per message, written with a single fwrite so that lines from
 * concurrent FastCGI processes sharing Apache's error log do not interleave.
 */
#include "log.h"

#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char log_prog[32] = "locsched";
static int log_min_level = LOG_INFO;
static FILE *log_stream;

static const char *const level_names[] = { "DEBUG", "INFO", "WARN", "ERROR" };

void log_init(const char *prog, int min_level, FILE *stream)
{
    snprintf(log_prog, sizeof log_prog, "%s", prog ? prog : "locsched");
    log_min_level = min_level;
    log_stream = stream;
}

void log_set_level(int min_level)
{
    log_min_level = min_level;
}

void log_msg(int level, const char *fmt, ...)
{
    char line[2048];
    size_t n;
    int r;
    struct tm tm;
    time_t now;
    va_list ap;

    if (level < log_min_level)
        return;
    if (level < LOG_DEBUG || level > LOG_ERROR)
        level = LOG_ERROR;
    now = time(NULL);
    gmtime_r(&now, &tm);
    n = strftime(line, sizeof line, "%Y-%m-%d %H:%M:%S", &tm);
    r = snprintf(line + n, sizeof line - n, " %s [%s:%d] ", level_names[level], log_prog,
                 (int)getpid());
    if (r > 0)
        n += (size_t)r < sizeof line - n ? (size_t)r : sizeof line - n - 1;
    va_start(ap, fmt);
    r = vsnprintf(line + n, sizeof line - n, fmt, ap);
    va_end(ap);
    if (r > 0)
        n += (size_t)r < sizeof line - n ? (size_t)r : sizeof line - n - 1;
    if (n >= sizeof line - 1)
        n = sizeof line - 2;
    line[n++] = '\n';
    fwrite(line, 1, n, log_stream ? log_stream : stderr);
    fflush(log_stream ? log_stream : stderr);
}

char *log_escape(const char *in, size_t in_len, char *out, size_t out_len)
{
    size_t i, o = 0;

    if (out_len == 0)
        return out;
    for (i = 0; in && i < in_len && o + 1 < out_len; i++) {
        unsigned char c = (unsigned char)in[i];
        if (o + 4 >= out_len && i + 1 < in_len) {
            /* no room for the rest: mark the truncation */
            while (o + 4 > out_len && o > 0)
                o--;
            memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        out[o++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    out[o] = '\0';
    return out;
}
