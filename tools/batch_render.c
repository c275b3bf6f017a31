/*
 * batch_render.c - batch status figures and their text, JSON and SVG
 * renderings (batch_render.h).  Pure: everything is appended to a buf.
 */
#include "batch_render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "credit.h"

/* ------------------------------------------------------------ job runs */

void br_runs_init(struct br_runs *r)
{
    memset(r, 0, sizeof *r);
}

void br_runs_free(struct br_runs *r)
{
    free(r->v);
    memset(r, 0, sizeof *r);
}

/* Append count jobs in state, merging with the last run when it has the
 * same state. */
static int runs_append(struct br_runs *r, int count, int state)
{
    struct br_run *last = r->n ? &r->v[r->n - 1] : NULL;

    if (r->oom)
        return -1;
    if (count <= 0)
        return 0;
    if (last && last->state == state) {
        last->count += count;
    } else {
        if (r->n == r->cap) {
            int cap = r->cap ? r->cap * 2 : 64;
            struct br_run *v = realloc(r->v, sizeof *v * (size_t)cap);
            if (!v) {
                r->oom = 1;
                return -1;
            }
            r->v = v;
            r->cap = cap;
        }
        r->v[r->n].first = r->next;
        r->v[r->n].count = count;
        r->v[r->n].state = state;
        r->n++;
    }
    r->next += count;
    return 0;
}

int br_runs_add(struct br_runs *r, int job, int state)
{
    if (job < 0 || job < r->next)
        return r->oom ? -1 : 0;
    if (state != BR_DONE && state != BR_IN_PROGRESS)
        state = BR_UNSENT;
    if (runs_append(r, job - r->next, BR_UNSENT) < 0)
        return -1;
    return runs_append(r, 1, state);
}

int br_runs_finish(struct br_runs *r, int njobs)
{
    if (njobs < 0)
        njobs = 0;
    while (r->n > 0 && r->v[r->n - 1].first >= njobs)
        r->n--;
    if (r->n > 0 && r->v[r->n - 1].first + r->v[r->n - 1].count > njobs)
        r->v[r->n - 1].count = njobs - r->v[r->n - 1].first;
    r->next = r->n ? r->v[r->n - 1].first + r->v[r->n - 1].count : 0;
    return runs_append(r, njobs - r->next, BR_UNSENT);
}

/* ------------------------------------------------------------ figures */

static long long nonneg(long long x)
{
    return x > 0 ? x : 0;
}

static double fraction(long long part, long long whole)
{
    if (whole <= 0)
        return 0;
    return part >= whole ? 1.0 : (double)nonneg(part) / (double)whole;
}

void br_batch_compute(struct br_batch *b)
{
    int i;
    double slowest = 0;

    b->jobs.done = nonneg(b->other_done);
    b->jobs.in_progress = nonneg(b->other_in_progress);
    for (i = 0; i < b->ncursors; i++) {
        struct br_cursor *c = &b->cursors[i];
        long long range = nonneg((long long)c->last_job_num - c->first_job_num + 1);
        c->jobs.done = nonneg(c->done);
        c->jobs.in_progress = nonneg(c->in_progress);
        c->jobs.unsent = nonneg(range - c->jobs.done - c->jobs.in_progress);
        c->fraction_done = fraction(c->jobs.done, range);
        c->est_time_left = est_time_left(c->remaining_credit, c->expavg_credit);
        if (c->est_time_left > slowest)
            slowest = c->est_time_left;
        b->jobs.done += c->jobs.done;
        b->jobs.in_progress += c->jobs.in_progress;
    }
    b->jobs.unsent = nonneg((long long)b->njobs - b->jobs.done - b->jobs.in_progress);
    b->fraction_done = fraction(b->jobs.done, b->njobs);
    b->est_time_left = b->ncursors > 0 ? slowest : NAN;
}

const char *br_state_name(int batch_state)
{
    static const char *const names[] = { "init", "in_progress", "complete", "aborted",
                                         "retired" };
    if (batch_state < 0 || batch_state > 4)
        return "unknown";
    return names[batch_state];
}

/* A quantity for people: whole numbers from 100 on, else 3 digits. */
static void fmt_qty(char *out, size_t len, double x)
{
    if (isnan(x))
        snprintf(out, len, "-");
    else if (isinf(x))
        snprintf(out, len, "inf");
    else if (fabs(x) >= 100)
        snprintf(out, len, "%.0f", x);
    else
        snprintf(out, len, "%.3g", x);
}

void br_format_days(char *out, size_t len, double days)
{
    fmt_qty(out, len, days);
}

/* ------------------------------------------------------------ text */

static const char *const cell_ascii[] = { "#", "+", "." };
static const char *const cell_utf8[] = { "\u2588", "\u2592", "\u2591" };
static const char *const cell_color[] = { "\033[32m", "\033[33m", "\033[2m" };
#define COLOR_RESET "\033[0m"

static void cells(struct buf *out, int state, long long n, int flags)
{
    const char *cell = (flags & BR_UTF8) ? cell_utf8[state] : cell_ascii[state];
    if (n <= 0)
        return;
    if (flags & BR_COLOR)
        buf_puts(out, cell_color[state]);
    while (n-- > 0)
        buf_puts(out, cell);
    if (flags & BR_COLOR)
        buf_puts(out, COLOR_RESET);
}

void br_bar(struct buf *out, const struct br_counts *c, int width, int flags)
{
    long long d = nonneg(c->done), p = nonneg(c->in_progress), u = nonneg(c->unsent);
    long double total = (long double)d + p + u;
    long long nd = 0, ndp = 0;

    if (width < 1)
        width = 1;
    if (total > 0) {
        nd = (long long)floorl((long double)d * width / total);
        ndp = (long long)floorl(((long double)d + p) * width / total);
    }
    buf_puts(out, "[");
    cells(out, BR_DONE, nd, flags);
    cells(out, BR_IN_PROGRESS, ndp - nd, flags);
    cells(out, BR_UNSENT, width - ndp, flags);
    buf_puts(out, "]");
}

void br_text_legend(struct buf *out, int flags)
{
    buf_puts(out, "bars: ");
    cells(out, BR_DONE, 1, flags);
    buf_puts(out, " done  ");
    cells(out, BR_IN_PROGRESS, 1, flags);
    buf_puts(out, " in progress  ");
    cells(out, BR_UNSENT, 1, flags);
    buf_puts(out, " unsent (not generated yet included)\n");
}

static void pct(struct buf *out, double f)
{
    buf_printf(out, "%5.1f%%", floor(f * 1000) / 10);
}

#define BAR_WIDTH 40

void br_text(struct buf *out, const struct br_batch *b, int flags)
{
    char days[32], rate[32], fastest[32], left[32];
    int i;

    buf_printf(out, "batch %d '", b->id);
    buf_puts(out, b->name);
    buf_printf(out, "': %s, %s, %d jobs, %d files\n", b->locality ? "locality" : "plain",
               br_state_name(b->state), b->njobs, b->nfiles);
    buf_puts(out, "  all          ");
    br_bar(out, &b->jobs, BAR_WIDTH, flags);
    buf_puts(out, " ");
    pct(out, b->fraction_done);
    buf_printf(out, "  %lld done, %lld in progress, %lld unsent", b->jobs.done,
               b->jobs.in_progress, b->jobs.unsent);
    if (!isnan(b->est_time_left)) {
        br_format_days(days, sizeof days, b->est_time_left);
        buf_printf(out, "; est_time_left %s days", days);
    }
    buf_puts(out, "\n");
    for (i = 0; i < b->ncursors; i++) {
        const struct br_cursor *c = &b->cursors[i];
        buf_printf(out, "  cursor %-5d ", c->id);
        br_bar(out, &c->jobs, BAR_WIDTH, flags);
        buf_puts(out, " ");
        pct(out, c->fraction_done);
        buf_printf(out, "  %lld done, %lld in progress, %lld unsent\n", c->jobs.done,
                   c->jobs.in_progress, c->jobs.unsent);
        br_format_days(days, sizeof days, c->est_time_left);
        fmt_qty(rate, sizeof rate, c->expavg_credit);
        fmt_qty(fastest, sizeof fastest, c->max_host_credit);
        fmt_qty(left, sizeof left, c->remaining_credit);
        buf_printf(out,
                   "               jobs %d-%d, first unfinished %d, first ungenerated %d; "
                   "team %d hosts, %s credit/day (fastest %s), remaining %s credit, "
                   "est_time_left %s days\n",
                   c->first_job_num, c->last_job_num, c->first_unfinished_job_num,
                   c->first_ungenerated_job_num, c->nhosts, rate, fastest, left, days);
    }
}

/* ------------------------------------------------------------ JSON */

static void json_str(struct buf *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    buf_puts(out, "\"");
    for (; *p; p++) {
        if (*p == '"' || *p == '\\') {
            char e[3] = { '\\', (char)*p, '\0' };
            buf_puts(out, e);
        } else if (*p < 0x20 || *p == 0x7f) {
            buf_printf(out, "\\u%04x", *p);
        } else {
            buf_put(out, (const char *)p, 1);
        }
    }
    buf_puts(out, "\"");
}

/* A number, or null when it is not finite (JSON has no infinity). */
static void json_num(struct buf *out, double d)
{
    if (isfinite(d))
        buf_printf(out, "%.15g", d);
    else
        buf_puts(out, "null");
}

static void json_counts(struct buf *out, const struct br_counts *c)
{
    buf_printf(out, "{\"done\": %lld, \"in_progress\": %lld, \"unsent\": %lld}", c->done,
               c->in_progress, c->unsent);
}

static void json_cursor(struct buf *out, const struct br_cursor *c)
{
    buf_printf(out, "        {\"id\": %d, \"first_job_num\": %d, \"last_job_num\": %d, ", c->id,
               c->first_job_num, c->last_job_num);
    buf_printf(out, "\"njobs\": %lld,\n", nonneg((long long)c->last_job_num - c->first_job_num + 1));
    buf_printf(out, "         \"first_unfinished_job_num\": %d, \"first_ungenerated_job_num\": %d,\n",
               c->first_unfinished_job_num, c->first_ungenerated_job_num);
    buf_puts(out, "         \"jobs\": ");
    json_counts(out, &c->jobs);
    buf_puts(out, ", \"fraction_done\": ");
    json_num(out, c->fraction_done);
    buf_printf(out, ",\n         \"nhosts\": %d, \"expavg_credit\": ", c->nhosts);
    json_num(out, c->expavg_credit);
    buf_puts(out, ", \"max_host_credit\": ");
    json_num(out, c->max_host_credit);
    buf_puts(out, ", \"remaining_credit\": ");
    json_num(out, c->remaining_credit);
    buf_puts(out, ", \"est_time_left\": ");
    json_num(out, c->est_time_left);
    buf_puts(out, "}");
}

void br_json(struct buf *out, const struct br_batch *b, int n)
{
    int i, k;

    buf_puts(out, "{\n  \"version\": 1,\n  \"batches\": [");
    for (i = 0; i < n; i++) {
        const struct br_batch *x = &b[i];
        buf_puts(out, i ? ",\n    {\n" : "\n    {\n");
        buf_printf(out, "      \"id\": %d,\n      \"name\": ", x->id);
        json_str(out, x->name);
        buf_puts(out, ",\n      \"state\": ");
        json_str(out, br_state_name(x->state));
        buf_printf(out, ",\n      \"state_code\": %d,\n      \"locality\": %s,\n", x->state,
                   x->locality ? "true" : "false");
        buf_printf(out, "      \"njobs\": %d,\n      \"nfiles\": %d,\n      \"jobs\": ", x->njobs,
                   x->nfiles);
        json_counts(out, &x->jobs);
        buf_puts(out, ",\n      \"fraction_done\": ");
        json_num(out, x->fraction_done);
        buf_puts(out, ",\n      \"est_time_left\": ");
        json_num(out, x->est_time_left);
        buf_puts(out, ",\n      \"cursors\": [");
        for (k = 0; k < x->ncursors; k++) {
            buf_puts(out, k ? ",\n" : "\n");
            json_cursor(out, &x->cursors[k]);
        }
        buf_puts(out, x->ncursors ? "\n      ]\n    }" : "]\n    }");
    }
    buf_puts(out, n ? "\n  ]\n}\n" : "]\n}\n");
}

/* ------------------------------------------------------------ SVG */

#define SVG_W 960.0
#define SVG_LEFT 130.0            /* room for band labels */
#define SVG_RIGHT 30.0
#define SVG_PLOT (SVG_W - SVG_LEFT - SVG_RIGHT)
#define SVG_LEGEND_H 40.0
#define SVG_TITLE_H 30.0
#define SVG_BAND_H 20.0
#define SVG_BAND_GAP 12.0
#define SVG_AXIS_H 34.0

static const char *const state_class[] = { "done", "in-progress", "unsent" };
static const char *const state_fill[] = { "#2e7d32", "#f9a825", "#cfd8dc" };
static const char *const state_label[] = { "done", "in progress", "unsent" };
#define MARKER_COLOR "#c62828"

/* x of the boundary before job j. */
static double job_x(long long j, int njobs)
{
    if (njobs <= 0)
        return SVG_LEFT;
    return SVG_LEFT + SVG_PLOT * (double)j / (double)njobs;
}

static void seg(struct buf *out, int state, double x0, double x1, double y)
{
    if (x1 - x0 <= 0)
        return;
    buf_printf(out, "      <rect class=\"%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.0f\" "
               "fill=\"%s\"/>\n", state_class[state], x0, y, x1 - x0, SVG_BAND_H,
               state_fill[state]);
}

/* Index of the first run that ends after job j (runs are in job order). */
static int run_at(const struct br_runs *r, long long j)
{
    int lo = 0, hi = r->n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if ((long long)r->v[mid].first + r->v[mid].count <= j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The segments of jobs [a, b) from the runs: one rect per run, or, when
 * there are more runs than pixels, one per run of pixel columns coloured
 * by the state of most of their jobs. */
static void band_runs(struct buf *out, const struct br_runs *r, long long a, long long b,
                      int njobs, double y)
{
    double x0 = job_x(a, njobs), x1 = job_x(b, njobs);
    int first = run_at(r, a), last = run_at(r, b - 1), ncol = (int)ceil(x1 - x0), k, col;
    int cur = -1;
    double cur_x = x0;

    if (b <= a)
        return;
    if (ncol < 1)
        ncol = 1;
    if (last - first + 1 <= ncol) {
        for (k = first; k < r->n && r->v[k].first < b; k++) {
            long long s = r->v[k].first > a ? r->v[k].first : a;
            long long e = (long long)r->v[k].first + r->v[k].count;
            seg(out, r->v[k].state, job_x(s, njobs), job_x(e < b ? e : b, njobs), y);
        }
        return;
    }
    k = first;
    for (col = 0; col < ncol; col++) {
        long long ca = a + (b - a) * col / ncol, cb = a + (b - a) * (col + 1) / ncol;
        long long n[3] = { 0, 0, 0 };
        int st, kk;
        for (kk = k; kk < r->n && r->v[kk].first < cb; kk++) {
            long long s = r->v[kk].first > ca ? r->v[kk].first : ca;
            long long e = (long long)r->v[kk].first + r->v[kk].count;
            if (e > cb)
                e = cb;
            if (e > s)
                n[r->v[kk].state] += e - s;
            if ((long long)r->v[kk].first + r->v[kk].count <= cb)
                k = kk + 1;
        }
        st = n[BR_DONE] >= n[BR_IN_PROGRESS] && n[BR_DONE] >= n[BR_UNSENT] ? BR_DONE
             : n[BR_IN_PROGRESS] >= n[BR_UNSENT]                          ? BR_IN_PROGRESS
                                                                          : BR_UNSENT;
        if (st != cur) {
            if (cur >= 0)
                seg(out, cur, cur_x, x0 + (x1 - x0) * col / ncol, y);
            cur = st;
            cur_x = x0 + (x1 - x0) * col / ncol;
        }
    }
    if (cur >= 0)
        seg(out, cur, cur_x, x1, y);
}

/* Without per-job states: done, in progress, unsent in proportion. */
static void band_counts(struct buf *out, const struct br_counts *c, long long a, long long b,
                        int njobs, double y)
{
    long long d = a + c->done, p = d + c->in_progress;
    if (d > b)
        d = b;
    if (p > b)
        p = b;
    seg(out, BR_DONE, job_x(a, njobs), job_x(d, njobs), y);
    seg(out, BR_IN_PROGRESS, job_x(d, njobs), job_x(p, njobs), y);
    seg(out, BR_UNSENT, job_x(p, njobs), job_x(b, njobs), y);
}

static void marker(struct buf *out, double x, double y, int cursor_id, int job)
{
    buf_printf(out, "      <g class=\"marker\">\n"
               "        <title>team of cursor %d: first unfinished job %d</title>\n"
               "        <line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" "
               "stroke-width=\"2\"/>\n"
               "        <path d=\"M %.2f %.2f l -5 -7 h 10 z\" fill=\"%s\"/>\n"
               "      </g>\n",
               cursor_id, job, x, y - 3, x, y + SVG_BAND_H + 3, MARKER_COLOR, x, y - 3,
               MARKER_COLOR);
}

static void band(struct buf *out, const struct br_batch *b, const struct br_cursor *c, double y)
{
    long long a = c ? c->first_job_num : 0, e = c ? (long long)c->last_job_num + 1 : b->njobs;
    const struct br_counts *cnt = c ? &c->jobs : &b->jobs;

    if (a < 0)
        a = 0;
    if (e > b->njobs)
        e = b->njobs;
    if (e < a)
        e = a;
    if (c)
        buf_printf(out, "    <g class=\"band\" id=\"batch%d-cursor%d\">\n", b->id, c->id);
    else
        buf_printf(out, "    <g class=\"band\" id=\"batch%d-all\">\n", b->id);
    buf_puts(out, "      <title>");
    if (c)
        buf_printf(out, "cursor %d: jobs %d-%d, ", c->id, c->first_job_num, c->last_job_num);
    else
        buf_printf(out, "all %d jobs: ", b->njobs);
    buf_printf(out, "%lld done, %lld in progress, %lld unsent", cnt->done, cnt->in_progress,
               cnt->unsent);
    if (c)
        buf_printf(out, "; team of %d hosts", c->nhosts);
    buf_puts(out, "</title>\n");
    buf_printf(out, "      <text x=\"%.0f\" y=\"%.2f\" text-anchor=\"end\">", SVG_LEFT - 8,
               y + SVG_BAND_H - 5);
    if (c)
        buf_printf(out, "cursor %d", c->id);
    else
        buf_puts(out, "all jobs");
    buf_puts(out, "</text>\n");
    if (b->runs.n > 0)
        band_runs(out, &b->runs, a, e, b->njobs, y);
    else
        band_counts(out, cnt, a, e, b->njobs, y);
    buf_printf(out, "      <rect class=\"range\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
               "height=\"%.0f\" fill=\"none\" stroke=\"#37474f\"/>\n",
               job_x(a, b->njobs), y, job_x(e, b->njobs) - job_x(a, b->njobs), SVG_BAND_H);
    if (c) {
        long long m = c->first_unfinished_job_num;
        if (m < a)
            m = a;
        if (m > e)
            m = e;
        marker(out, job_x(m, b->njobs), y, c->id, c->first_unfinished_job_num);
    }
    buf_puts(out, "    </g>\n");
}

static double batch_height(const struct br_batch *b)
{
    int nbands = b->ncursors > 0 ? b->ncursors : 1;
    return SVG_TITLE_H + nbands * (SVG_BAND_H + SVG_BAND_GAP) + SVG_AXIS_H;
}

static void axis(struct buf *out, int njobs, double y)
{
    static const double ticks[] = { 0, 0.25, 0.5, 0.75, 1 };
    size_t i;
    buf_printf(out, "    <g class=\"axis\">\n      <line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
               "y2=\"%.2f\" stroke=\"#37474f\"/>\n", SVG_LEFT, y, SVG_LEFT + SVG_PLOT, y);
    for (i = 0; i < sizeof ticks / sizeof ticks[0]; i++) {
        long long j = (long long)floor(ticks[i] * njobs);
        double x = job_x(j, njobs);
        if (i > 0 && j == (long long)floor(ticks[i - 1] * njobs))
            continue;
        buf_printf(out, "      <line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
                   "stroke=\"#37474f\"/>\n", x, y, x, y + 5);
        buf_printf(out, "      <text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%lld</text>\n",
                   x, y + 18, j);
    }
    buf_printf(out, "      <text x=\"%.0f\" y=\"%.2f\" text-anchor=\"end\">job</text>\n",
               SVG_LEFT - 8, y + 18);
    buf_puts(out, "    </g>\n");
}

static void legend(struct buf *out)
{
    int s;
    double x = SVG_LEFT;
    buf_puts(out, "  <g class=\"legend\">\n");
    for (s = 0; s < 3; s++) {
        buf_printf(out, "    <rect class=\"%s\" x=\"%.0f\" y=\"12\" width=\"14\" height=\"14\" "
                   "fill=\"%s\" stroke=\"#37474f\"/>\n", state_class[s], x, state_fill[s]);
        buf_printf(out, "    <text x=\"%.0f\" y=\"24\">%s</text>\n", x + 20, state_label[s]);
        x += 120;
    }
    buf_printf(out, "    <line x1=\"%.0f\" y1=\"10\" x2=\"%.0f\" y2=\"28\" stroke=\"%s\" "
               "stroke-width=\"2\"/>\n", x + 7, x + 7, MARKER_COLOR);
    buf_printf(out, "    <text x=\"%.0f\" y=\"24\">team position (first unfinished job)</text>\n",
               x + 20);
    buf_puts(out, "  </g>\n");
}

void br_svg(struct buf *out, const struct br_batch *b, int n)
{
    buf_puts(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    br_svg_element(out, b, n);
}

void br_svg_element(struct buf *out, const struct br_batch *b, int n)
{
    double h = SVG_LEGEND_H, y;
    int i, k;

    for (i = 0; i < n; i++)
        h += batch_height(&b[i]);
    if (n == 0)
        h += SVG_TITLE_H;
    buf_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
               "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" "
               "font-size=\"12\" role=\"img\">\n", SVG_W, h, SVG_W, h);
    buf_puts(out, "  <title>locsched batches: job space</title>\n");
    buf_printf(out, "  <rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n",
               SVG_W, h);
    legend(out);
    y = SVG_LEGEND_H;
    if (n == 0)
        buf_printf(out, "  <text x=\"%.0f\" y=\"%.0f\">no batches</text>\n", SVG_LEFT, y + 20);
    for (i = 0; i < n; i++) {
        const struct br_batch *x = &b[i];
        buf_printf(out, "  <g class=\"batch\" id=\"batch%d\">\n", x->id);
        buf_printf(out, "    <text x=\"10\" y=\"%.2f\" font-weight=\"bold\">batch %d '", y + 20,
                   x->id);
        buf_put_xml(out, x->name);
        buf_printf(out, "': %s, %d jobs, %.1f%% done</text>\n", br_state_name(x->state),
                   x->njobs, floor(x->fraction_done * 1000) / 10);
        y += SVG_TITLE_H;
        if (x->ncursors == 0) {
            band(out, x, NULL, y);
            y += SVG_BAND_H + SVG_BAND_GAP;
        }
        for (k = 0; k < x->ncursors; k++) {
            band(out, x, &x->cursors[k], y);
            y += SVG_BAND_H + SVG_BAND_GAP;
        }
        axis(out, x->njobs, y);
        y += SVG_AXIS_H;
        buf_puts(out, "  </g>\n");
    }
    buf_puts(out, "</svg>\n");
}
