/*
 * tap.h - a tiny TAP producer for locsched's C tests.
 *
 * Each check prints "ok N - what" or "not ok N - what" with the file and
 * line of a failure.  tap_done() prints the plan and returns the exit
 * status: 0 when every check passed, 1 otherwise.
 */
#ifndef LOCSCHED_TAP_H
#define LOCSCHED_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

#define TAP_CHECK(cond, ...) tap_check_((cond) ? 1 : 0, __FILE__, __LINE__, #cond, __VA_ARGS__)

__attribute__((format(printf, 5, 6)))
static inline int tap_check_(int ok, const char *file, int line, const char *expr,
                             const char *fmt, ...)
{
    va_list ap;
    tap_n++;
    printf("%s %d - ", ok ? "ok" : "not ok", tap_n);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    if (!ok) {
        tap_failed++;
        printf("#   failed at %s:%d: %s\n", file, line, expr);
    }
    fflush(stdout);
    return ok;
}

#define TAP_EQ_INT(a, b, ...) do { long long a_ = (a), b_ = (b); \
    if (!TAP_CHECK(a_ == b_, __VA_ARGS__)) printf("#   got %lld, want %lld\n", a_, b_); } while (0)
#define TAP_EQ_DBL(a, b, eps, ...) do { double a_ = (a), b_ = (b); \
    if (!TAP_CHECK(fabs(a_ - b_) <= (eps), __VA_ARGS__)) printf("#   got %.17g, want %.17g\n", a_, b_); } while (0)
#define TAP_EQ_STR(a, b, ...) do { const char *a_ = (a), *b_ = (b); \
    if (!TAP_CHECK(a_ && b_ && strcmp(a_, b_) == 0, __VA_ARGS__)) \
        printf("#   got \"%s\", want \"%s\"\n", a_ ? a_ : "(null)", b_ ? b_ : "(null)"); } while (0)

static inline int tap_done(void)
{
    printf("1..%d\n", tap_n);
    if (tap_failed)
        printf("# %d of %d checks failed\n", tap_failed, tap_n);
    return tap_failed ? 1 : 0;
}

#endif /* LOCSCHED_TAP_H */
