/*
 * status_render.c - the status page and the batch pages as HTML with
 * inline SVG (status_render.h).  Pure: everything comes from the structs.
 */
#include "status_render.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Colours repeat what the words say; patterns tell the states apart in
 * grey: done solid, in progress hatched, unsent light. */
#define C_DONE "#2e7d32"
#define C_PROG "#f9a825"
#define C_UNSENT "#cfd8dc"
#define C_BAR "#1565c0"
#define C_ERR "#c62828"

void sr_format_time(char *out, size_t len, int t)
{
    struct tm tm;
    time_t tt = (time_t)t;
    if (t <= 0 || !gmtime_r(&tt, &tm) || strftime(out, len, "%Y-%m-%d %H:%M UTC", &tm) == 0)
        snprintf(out, len, "-");
}

void sr_format_bytes(char *out, size_t len, double b)
{
    if (!(b >= 0) || !isfinite(b))
        snprintf(out, len, "-");
    else if (b < 1e3)
        snprintf(out, len, "%.0f B", b);
    else if (b < 1e6)
        snprintf(out, len, "%.1f kB", b / 1e3);
    else if (b < 1e9)
        snprintf(out, len, "%.1f MB", b / 1e6);
    else if (b < 1e12)
        snprintf(out, len, "%.1f GB", b / 1e9);
    else
        snprintf(out, len, "%.1f TB", b / 1e12);
}

void sr_format_secs(char *out, size_t len, double s)
{
    if (!isfinite(s))
        snprintf(out, len, "-");
    else if (s < 0)
        snprintf(out, len, "0 s");
    else if (s < 120)
        snprintf(out, len, "%.0f s", s);
    else if (s < 7200)
        snprintf(out, len, "%.0f min", s / 60);
    else if (s < 172800)
        snprintf(out, len, "%.1f h", s / 3600);
    else
        snprintf(out, len, "%.1f d", s / 86400);
}

int sr_silent_after(const struct sr_daemon *d)
{
    /* the skeleton writes its row at least every 10 s while it works and
     * after every nap; a pass may take a while */
    int sleep = d->sleep_secs > 0 ? d->sleep_secs : 0;
    return 120 + 2 * sleep;
}

int sr_daemon_state(const struct sr_daemon *d, int now)
{
    if (d->stopped)
        return SR_STOPPED;
    if (now - d->last_pass_time > sr_silent_after(d))
        return SR_SILENT;
    if (d->last_items < 0)
        return SR_FAILING;
    return SR_RUNNING;
}

const char *sr_daemon_state_name(int state)
{
    switch (state) {
    case SR_RUNNING: return "running";
    case SR_STOPPED: return "stopped";
    case SR_SILENT: return "not heard from";
    case SR_FAILING: return "failing";
    default: return "unknown";
    }
}

const char *sr_validate_state_name(int state)
{
    static const char *const names[SR_VALIDATE_STATES] = {
        "not validated yet", "valid", "invalid", "no check", "inconclusive", "too late"
    };
    return state >= 0 && state < SR_VALIDATE_STATES ? names[state] : "other";
}

void sr_batch_file(char *out, size_t len, int batch_id)
{
    snprintf(out, len, "batch_%d.html", batch_id);
}

/* ------------------------------------------------------------- page frame */

static void page_head(struct buf *out, const char *project, const char *title)
{
    buf_puts(out, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n"
                  "<head>\n<meta charset=\"utf-8\"/>\n"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
                  "<title>");
    buf_put_xml(out, title);
    buf_puts(out, " - ");
    buf_put_xml(out, project);
    buf_puts(out, "</title>\n<style>\n"
             "body { font-family: sans-serif; margin: 1em 2em; color: #111; background: #fff; }\n"
             "table { border-collapse: collapse; margin: 0.5em 0 1.5em; }\n"
             "caption, figcaption { text-align: left; font-weight: bold; padding: 0.3em 0; "
             "white-space: nowrap; }\n"
             "figure { margin: 0.5em 0 1.5em; }\n"
             "th, td { border: 1px solid #90a4ae; padding: 0.2em 0.6em; text-align: left; }\n"
             "td.n { text-align: right; font-variant-numeric: tabular-nums; }\n"
             ".state-running { color: #1b5e20; } .state-failing, .state-not-heard-from "
             "{ color: #b71c1c; font-weight: bold; } .state-stopped { color: #455a64; }\n"
             "svg { max-width: 100%; height: auto; }\n"
             "</style>\n</head>\n<body>\n");
}

static void page_foot(struct buf *out, int now)
{
    char t[64];
    sr_format_time(t, sizeof t, now);
    buf_printf(out, "<footer><p>Generated %s by locsched's status_pages; "
                    "the page is regenerated every minute.</p></footer>\n</body>\n</html>\n", t);
}

static void num_cell(struct buf *out, long long v)
{
    buf_printf(out, "<td class=\"n\">%lld</td>", v);
}

/* ------------------------------------------------------------------ charts */

#define CH_W 720.0
#define CH_H 220.0
#define CH_L 60.0
#define CH_R 20.0
#define CH_T 20.0
#define CH_B 40.0

static long long nice_max(long long m)
{
    long long step = 1;
    if (m <= 0)
        return 1;
    while (step * 10 <= m)
        step *= 10;
    return (m + step - 1) / step * step;
}

static void chart_open(struct buf *out, const char *id, const char *title, const char *desc)
{
    buf_printf(out, "<figure id=\"%s-figure\">\n<figcaption>", id);
    buf_put_xml(out, title);
    buf_puts(out, "</figcaption>\n");
    buf_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"%s\" role=\"img\" "
               "aria-labelledby=\"%s-title %s-desc\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n",
               id, id, id, CH_W, CH_H, CH_W, CH_H);
    buf_printf(out, "<title id=\"%s-title\">", id);
    buf_put_xml(out, title);
    buf_printf(out, "</title>\n<desc id=\"%s-desc\">", id);
    buf_put_xml(out, desc);
    buf_puts(out, "</desc>\n");
    buf_printf(out, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n",
               CH_W, CH_H);
}

/* The y axis from 0 to ymax with three ticks, and the x axis line. */
static void chart_axes(struct buf *out, long long ymax)
{
    int k;
    double ph = CH_H - CH_T - CH_B;
    for (k = 0; k <= 2; k++) {
        double y = CH_T + ph - ph * k / 2.0;
        buf_printf(out, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#cfd8dc\"/>"
                   "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%lld</text>\n",
                   CH_L, y, CH_W - CH_R, y, CH_L - 6, y + 4, ymax * k / 2);
    }
    buf_printf(out, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#37474f\"/>\n",
               CH_L, CH_H - CH_B, CH_W - CH_R, CH_H - CH_B);
}

static void x_label(struct buf *out, double x, int t, int with_date, const char *anchor)
{
    char s[32];
    struct tm tm;
    time_t tt = (time_t)t;
    if (!gmtime_r(&tt, &tm) || strftime(s, sizeof s, with_date ? "%m-%d %H:%M" : "%H:%M", &tm) == 0)
        snprintf(s, sizeof s, "?");
    buf_printf(out, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"%s\">%s</text>\n", x,
               CH_H - CH_B + 16, anchor, s);
}

/*
 * A bar chart of n values, one per step seconds from t0; with v2, a second
 * series (errors) drawn as a dark bar inside each bar.
 */
static void bar_chart(struct buf *out, const char *id, const char *title, const char *desc,
                      const long long *v, const long long *v2, int n, int t0, int step)
{
    long long m = 0;
    int i;
    double pw = CH_W - CH_L - CH_R, ph = CH_H - CH_T - CH_B, bw;
    for (i = 0; i < n; i++) {
        if (v[i] > m)
            m = v[i];
        if (v2 && v2[i] > m)
            m = v2[i];
    }
    m = nice_max(m);
    bw = pw / n;
    chart_open(out, id, title, desc);
    chart_axes(out, m);
    for (i = 0; i < n; i++) {
        double h = ph * (double)(v[i] > 0 ? v[i] : 0) / (double)m;
        double x = CH_L + bw * i;
        if (h > 0)
            buf_printf(out, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                       "height=\"%.1f\" fill=\"%s\"/>\n", x + 1, CH_T + ph - h, bw - 2, h, C_BAR);
        if (v2 && v2[i] > 0) {
            double h2 = ph * (double)v2[i] / (double)m;
            buf_printf(out, "<rect class=\"bar-error\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                       "height=\"%.1f\" fill=\"%s\" stroke=\"#000\"/>\n", x + bw / 4,
                       CH_T + ph - h2, bw / 2, h2, C_ERR);
        }
        if (i % (n / 6 > 0 ? n / 6 : 1) == 0)
            x_label(out, x + bw / 2, t0 + i * step, 0, "middle");
    }
    buf_puts(out, "</svg>\n</figure>\n");
}

/* ------------------------------------------------------------ status page */

static void daemons_table(struct buf *out, const struct sr_status *s)
{
    int i;
    buf_puts(out, "<h2 id=\"daemons\">Daemons</h2>\n");
    if (s->ndaemons == 0) {
        buf_puts(out, "<p>No daemon has reported yet (daemons write their row in the "
                      "daemon_status table when they start).</p>\n");
        return;
    }
    buf_puts(out, "<table id=\"daemon-table\">\n<caption>Each daemon on each host</caption>\n"
                  "<thead><tr><th scope=\"col\">Daemon</th><th scope=\"col\">Host</th>"
                  "<th scope=\"col\">Share</th><th scope=\"col\">State</th>"
                  "<th scope=\"col\">Last pass</th><th scope=\"col\">Lag</th>"
                  "<th scope=\"col\">Items in last pass</th><th scope=\"col\">Passes</th>"
                  "<th scope=\"col\">Last failure</th></tr></thead>\n<tbody>\n");
    for (i = 0; i < s->ndaemons; i++) {
        const struct sr_daemon *d = &s->daemons[i];
        int st = sr_daemon_state(d, s->now);
        const char *name = sr_daemon_state_name(st);
        char last[64], lag[32], err[64], cls[32];
        size_t k;
        sr_format_time(last, sizeof last, d->last_pass_time);
        if (d->last_pass_time > 0)
            sr_format_secs(lag, sizeof lag, (double)(s->now - d->last_pass_time));
        else
            snprintf(lag, sizeof lag, "-");
        sr_format_time(err, sizeof err, d->last_error_time);
        snprintf(cls, sizeof cls, "state-%s", name);
        for (k = 0; cls[k]; k++)
            if (cls[k] == ' ')
                cls[k] = '-';
        buf_puts(out, "<tr><th scope=\"row\">");
        buf_put_xml(out, d->name);
        buf_puts(out, "</th><td>");
        buf_put_xml(out, d->hostname);
        if (d->mod_n > 1)
            buf_printf(out, "</td><td>--mod %d %d</td>", d->mod_n, d->mod_i);
        else
            buf_puts(out, "</td><td>all</td>");
        buf_printf(out, "<td class=\"%s\">%s</td><td>%s</td><td>%s</td>", cls, name, last, lag);
        if (d->last_items < 0)
            buf_puts(out, "<td>failed</td>");
        else
            num_cell(out, d->last_items);
        num_cell(out, d->npasses);
        buf_printf(out, "<td>%s</td></tr>\n", err);
    }
    buf_puts(out, "</tbody>\n</table>\n");
}

static void sched_section(struct buf *out, const struct sr_status *s)
{
    long long req = 0, err = 0;
    int i;
    char desc[256];
    buf_puts(out, "<h2 id=\"scheduler\">Scheduler requests</h2>\n");
    if (!s->sched.have_log) {
        buf_puts(out, "<p>The scheduler's log was not found, so its requests are not "
                      "counted here (status_pages --sched-log FILE).</p>\n");
        return;
    }
    for (i = 0; i < SR_MINUTES; i++) {
        req += s->sched.requests[i];
        err += s->sched.errors[i];
    }
    buf_printf(out, "<p id=\"sched-summary\">Last 60 minutes: %lld requests, %lld answered with "
                    "an error (%.1f requests per minute).</p>\n", req, err, (double)req / 60.0);
    snprintf(desc, sizeof desc, "Bars: requests per minute over the last 60 minutes; dark "
             "inner bars: requests answered with an error. In all %lld requests, %lld errors.",
             req, err);
    bar_chart(out, "chart-sched", "Scheduler requests and errors per minute", desc,
              s->sched.requests, s->sched.errors, SR_MINUTES, s->sched.minute0, 60);
}

static void jobs_section(struct buf *out, const struct sr_status *s)
{
    long long total = 0;
    int i;
    char desc[256], db[32], backlog[32];
    for (i = 0; i < SR_HOURS; i++)
        total += s->reported[i];
    buf_puts(out, "<h2 id=\"jobs\">Jobs and hosts</h2>\n");
    sr_format_bytes(db, sizeof db, s->db_bytes);
    if (s->tr_backlog > 0 && s->tr_oldest > 0)
        sr_format_secs(backlog, sizeof backlog, (double)(s->now - s->tr_oldest));
    else
        snprintf(backlog, sizeof backlog, "none");
    buf_puts(out, "<table id=\"figures\">\n<caption>Figures now</caption>\n<tbody>\n");
    buf_printf(out, "<tr><th scope=\"row\">Results unsent</th><td class=\"n\" id=\"unsent\">%lld"
                    "</td></tr>\n", s->unsent);
    buf_printf(out, "<tr><th scope=\"row\">Results in progress</th><td class=\"n\" "
                    "id=\"in-progress\">%lld</td></tr>\n", s->in_progress);
    buf_printf(out, "<tr><th scope=\"row\">Results reported in the last 24 hours</th>"
                    "<td class=\"n\" id=\"reported-day\">%lld</td></tr>\n", total);
    buf_printf(out, "<tr><th scope=\"row\">Hosts active in the last 24 hours</th>"
                    "<td class=\"n\" id=\"hosts-active\">%lld</td></tr>\n", s->hosts_active_day);
    buf_printf(out, "<tr><th scope=\"row\">Workunits waiting for the transitioner</th>"
                    "<td class=\"n\">%lld (oldest waits %s)</td></tr>\n", s->tr_backlog, backlog);
    buf_printf(out, "<tr><th scope=\"row\">Database size</th><td class=\"n\" id=\"db-size\">%s"
                    "</td></tr>\n", db);
    buf_puts(out, "</tbody>\n</table>\n");
    snprintf(desc, sizeof desc, "Bars: results reported per hour over the last 24 hours, "
             "%lld in all.", total);
    bar_chart(out, "chart-reported", "Results reported (done) per hour", desc, s->reported, NULL,
              SR_HOURS, s->hour0, 3600);
}

static void batches_list(struct buf *out, const struct sr_status *s)
{
    int i;
    buf_puts(out, "<h2 id=\"batches\">Batches</h2>\n");
    if (s->nbatches == 0) {
        buf_puts(out, "<p>No batches.</p>\n");
        return;
    }
    buf_puts(out, "<table id=\"batch-table\">\n<caption>Batches not retired</caption>\n"
                  "<thead><tr><th scope=\"col\">Batch</th><th scope=\"col\">State</th>"
                  "<th scope=\"col\">Jobs</th><th scope=\"col\">Done</th>"
                  "<th scope=\"col\">Expected end</th></tr></thead>\n<tbody>\n");
    for (i = 0; i < s->nbatches; i++) {
        const struct sr_batch_line *b = &s->batches[i];
        char file[64], eta[64];
        sr_batch_file(file, sizeof file, b->id);
        sr_format_time(eta, sizeof eta, b->finish_eta);
        buf_printf(out, "<tr><th scope=\"row\"><a href=\"%s\">", file);
        buf_put_xml(out, b->name);
        buf_printf(out, "</a> (%d)</th><td>%s</td>", b->id, br_state_name(b->state));
        num_cell(out, b->njobs);
        buf_printf(out, "<td class=\"n\">%lld (%.1f%%)</td><td>%s</td></tr>\n", b->done,
                   floor(b->fraction_done * 1000) / 10, eta);
    }
    buf_puts(out, "</tbody>\n</table>\n");
}

void sr_status_html(struct buf *out, const struct sr_status *s)
{
    char t[64];
    page_head(out, s->project, "Server status");
    buf_puts(out, "<main>\n<h1>Server status of ");
    buf_put_xml(out, s->project);
    sr_format_time(t, sizeof t, s->now);
    buf_printf(out, "</h1>\n<p>As of %s.</p>\n", t);
    daemons_table(out, s);
    sched_section(out, s);
    jobs_section(out, s);
    batches_list(out, s);
    buf_puts(out, "</main>\n");
    page_foot(out, s->now);
}

/* ------------------------------------------------------------- batch page */

/* A progress bar: done solid, in progress hatched, unsent light. */
static void progress_svg(struct buf *out, const char *id, const char *label,
                         const struct br_counts *c)
{
    double w = 400, h = 18, total = (double)(c->done + c->in_progress + c->unsent);
    double xd = total > 0 ? w * (double)c->done / total : 0;
    double xp = total > 0 ? w * (double)c->in_progress / total : 0;
    buf_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"%s\" class=\"progress\" "
               "role=\"img\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
               id, w + 2, h + 2, w + 2, h + 2);
    buf_puts(out, "<title>");
    buf_put_xml(out, label);
    buf_printf(out, ": %lld done, %lld in progress, %lld unsent</title>\n", c->done,
               c->in_progress, c->unsent);
    buf_printf(out, "<defs><pattern id=\"%s-hatch\" width=\"6\" height=\"6\" "
               "patternUnits=\"userSpaceOnUse\"><rect width=\"6\" height=\"6\" fill=\"%s\"/>"
               "<path d=\"M0,6 L6,0\" stroke=\"#000\" stroke-width=\"1\"/></pattern></defs>\n",
               id, C_PROG);
    buf_printf(out, "<rect class=\"unsent\" x=\"1\" y=\"1\" width=\"%.1f\" height=\"%.0f\" "
               "fill=\"%s\"/>\n", w, h, C_UNSENT);
    if (xd > 0)
        buf_printf(out, "<rect class=\"done\" x=\"1\" y=\"1\" width=\"%.1f\" height=\"%.0f\" "
                   "fill=\"%s\"/>\n", xd, h, C_DONE);
    if (xp > 0)
        buf_printf(out, "<rect class=\"in-progress\" x=\"%.1f\" y=\"1\" width=\"%.1f\" "
                   "height=\"%.0f\" fill=\"url(#%s-hatch)\"/>\n", 1 + xd, xp, h, id);
    buf_printf(out, "<rect x=\"1\" y=\"1\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" "
               "stroke=\"#37474f\"/>\n</svg>\n", w, h);
}

static void progress_row(struct buf *out, const char *id, const char *label,
                         const struct br_counts *c, double fraction, double days)
{
    char left[32];
    br_format_days(left, sizeof left, days);
    buf_puts(out, "<tr><th scope=\"row\">");
    buf_put_xml(out, label);
    buf_puts(out, "</th><td>");
    progress_svg(out, id, label, c);
    buf_printf(out, "</td><td class=\"n\">%.1f%%</td>", floor(fraction * 1000) / 10);
    num_cell(out, c->done);
    num_cell(out, c->in_progress);
    num_cell(out, c->unsent);
    buf_printf(out, "<td class=\"n\">%s</td></tr>\n", left);
}

static void completion_chart(struct buf *out, const struct sr_batch_page *p)
{
    const struct br_batch *b = p->b;
    int t0 = p->create_time, t1 = p->completion_time > 0 ? p->completion_time : p->now, i;
    long long cum = 0, ymax = nice_max(b->njobs > 0 ? b->njobs : 1);
    double pw = CH_W - CH_L - CH_R, ph = CH_H - CH_T - CH_B, span;
    char desc[512], a[64], z[64];

    if (p->ndone_hours > 0 && (t0 <= 0 || p->done_hours[0].hour < t0))
        t0 = p->done_hours[0].hour;
    if (t0 <= 0)
        t0 = t1 - 3600;
    if (p->ndone_hours > 0 && p->done_hours[p->ndone_hours - 1].hour + 3600 > t1)
        t1 = p->done_hours[p->ndone_hours - 1].hour + 3600;
    if (t1 <= t0)
        t1 = t0 + 3600;
    span = (double)(t1 - t0);
    for (i = 0; i < p->ndone_hours; i++)
        cum += p->done_hours[i].n;
    sr_format_time(a, sizeof a, t0);
    sr_format_time(z, sizeof z, t1);
    snprintf(desc, sizeof desc, "A line of the jobs finished with a canonical result, counted "
             "by the hour of its report, from %s to %s: %lld of %d jobs.", a, z, cum, b->njobs);
    chart_open(out, "chart-completion", "Jobs finished over time", desc);
    chart_axes(out, ymax);
    buf_printf(out, "<polyline class=\"completion\" fill=\"none\" stroke=\"%s\" "
               "stroke-width=\"2\" points=\"%.1f,%.1f", C_DONE, CH_L, CH_T + ph);
    cum = 0;
    for (i = 0; i < p->ndone_hours; i++) {
        /* a step: flat until the hour starts, up by the hour's jobs at its end */
        double xa = CH_L + pw * (double)(p->done_hours[i].hour - t0) / span;
        double xb = CH_L + pw * (double)(p->done_hours[i].hour + 3600 - t0) / span;
        buf_printf(out, " %.1f,%.1f", xa, CH_T + ph - ph * (double)cum / (double)ymax);
        cum += p->done_hours[i].n;
        buf_printf(out, " %.1f,%.1f", xb, CH_T + ph - ph * (double)cum / (double)ymax);
    }
    buf_printf(out, " %.1f,%.1f\"/>\n", CH_L + pw, CH_T + ph - ph * (double)cum / (double)ymax);
    buf_printf(out, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#37474f\" "
               "stroke-dasharray=\"4 3\"/><text x=\"%.0f\" y=\"%.1f\">all %d jobs</text>\n", CH_L,
               CH_T + ph - ph * (double)b->njobs / (double)ymax, CH_W - CH_R,
               CH_T + ph - ph * (double)b->njobs / (double)ymax, CH_L + 4,
               CH_T + ph - ph * (double)b->njobs / (double)ymax - 4, b->njobs);
    x_label(out, CH_L, t0, 1, "start");
    x_label(out, CH_L + pw, t1, 1, "end");
    buf_puts(out, "</svg>\n</figure>\n");
}

void sr_batch_html(struct buf *out, const struct sr_batch_page *p)
{
    const struct br_batch *b = p->b;
    char title[320], t[64], eta[64], bytes[32], left[32];
    int k;
    long long vtotal = p->validate_other;

    snprintf(title, sizeof title, "Batch %s", b->name);
    page_head(out, p->project, title);
    buf_puts(out, "<main>\n<p><a href=\"index.html\">Server status</a></p>\n<h1>Batch ");
    buf_put_xml(out, b->name);
    buf_printf(out, " (%d)</h1>\n", b->id);
    sr_format_time(t, sizeof t, p->now);
    sr_format_time(eta, sizeof eta, p->finish_eta);
    br_format_days(left, sizeof left, b->est_time_left);
    buf_printf(out, "<p>As of %s.</p>\n", t);
    buf_puts(out, "<table id=\"batch-summary\">\n<caption>Summary</caption>\n<tbody>\n");
    buf_printf(out, "<tr><th scope=\"row\">State</th><td id=\"batch-state\">%s</td></tr>\n",
               br_state_name(b->state));
    buf_printf(out, "<tr><th scope=\"row\">Kind</th><td>%s</td></tr>\n",
               b->locality ? "locality (teams of hosts work through ranges of jobs)" : "plain");
    buf_printf(out, "<tr><th scope=\"row\">Jobs</th><td class=\"n\">%d (%d input files)</td>"
                    "</tr>\n", b->njobs, b->nfiles);
    buf_printf(out, "<tr><th scope=\"row\">Done</th><td class=\"n\" id=\"batch-done\">%lld "
                    "(%.1f%%)</td></tr>\n", b->jobs.done, floor(b->fraction_done * 1000) / 10);
    sr_format_time(t, sizeof t, p->create_time);
    buf_printf(out, "<tr><th scope=\"row\">Created</th><td>%s</td></tr>\n", t);
    if (p->completion_time > 0) {
        sr_format_time(t, sizeof t, p->completion_time);
        buf_printf(out, "<tr><th scope=\"row\">Completed</th><td>%s</td></tr>\n", t);
    } else {
        buf_printf(out, "<tr><th scope=\"row\">Expected end (ETA)</th><td id=\"batch-eta\">%s"
                        "%s</td></tr>\n", eta, p->finish_eta > 0 ? "" : " (not projected yet)");
        buf_printf(out, "<tr><th scope=\"row\">Time left, slowest team</th><td>%s days</td>"
                        "</tr>\n", left);
    }
    buf_puts(out, "</tbody>\n</table>\n");

    buf_puts(out, "<h2 id=\"progress\">Progress</h2>\n<p>In each bar, done jobs are solid, "
                  "jobs in progress hatched and unsent jobs light; the numbers are in the "
                  "columns.</p>\n<table id=\"progress-table\">\n<caption>Progress per cursor "
                  "(team)</caption>\n<thead><tr><th scope=\"col\">Part</th>"
                  "<th scope=\"col\">Bar</th><th scope=\"col\">Done</th>"
                  "<th scope=\"col\">Jobs done</th><th scope=\"col\">In progress</th>"
                  "<th scope=\"col\">Unsent</th><th scope=\"col\">Days left</th></tr></thead>\n"
                  "<tbody>\n");
    progress_row(out, "bar-all", "whole batch", &b->jobs, b->fraction_done, b->est_time_left);
    for (k = 0; k < b->ncursors; k++) {
        const struct br_cursor *c = &b->cursors[k];
        char id[32], label[96];
        snprintf(id, sizeof id, "bar-cursor-%d", c->id);
        snprintf(label, sizeof label, "cursor %d, jobs %d-%d, %d hosts", c->id, c->first_job_num,
                 c->last_job_num, c->nhosts);
        progress_row(out, id, label, &c->jobs, c->fraction_done, c->est_time_left);
    }
    buf_puts(out, "</tbody>\n</table>\n");

    buf_puts(out, "<h2 id=\"completion\">Completion over time</h2>\n");
    completion_chart(out, p);

    buf_puts(out, "<h2 id=\"job-space\">Job space</h2>\n");
    br_svg_element(out, b, 1);

    buf_puts(out, "<h2 id=\"files\">Files</h2>\n");
    sr_format_bytes(bytes, sizeof bytes, p->bytes_sent);
    buf_puts(out, "<table id=\"file-table\">\n<caption>Input files on hosts</caption>\n<tbody>\n");
    buf_printf(out, "<tr><th scope=\"row\">Copies on hosts</th><td class=\"n\" "
                    "id=\"file-copies\">%lld</td></tr>\n", p->file_copies);
    buf_printf(out, "<tr><th scope=\"row\">Hosts per file</th><td class=\"n\" "
                    "id=\"hosts-per-file\">%.2f</td></tr>\n",
               b->nfiles > 0 ? (double)p->file_copies / (double)b->nfiles : 0.0);
    buf_printf(out, "<tr><th scope=\"row\">Files on at least one host</th><td class=\"n\">"
                    "%lld of %d</td></tr>\n", p->files_on_hosts, b->nfiles);
    buf_printf(out, "<tr><th scope=\"row\">Bytes sent (those copies)</th><td class=\"n\" "
                    "id=\"bytes-sent\">%s</td></tr>\n", bytes);
    buf_puts(out, "</tbody>\n</table>\n");

    buf_puts(out, "<h2 id=\"validation\">Validation</h2>\n");
    for (k = 0; k < SR_VALIDATE_STATES; k++)
        vtotal += p->validate[k];
    if (vtotal == 0) {
        buf_puts(out, "<p>No result reported yet.</p>\n");
    } else {
        buf_puts(out, "<table id=\"validate-table\">\n<caption>Reported results by validation "
                      "state</caption>\n<thead><tr><th scope=\"col\">State</th>"
                      "<th scope=\"col\">Results</th></tr></thead>\n<tbody>\n");
        for (k = 0; k < SR_VALIDATE_STATES; k++) {
            if (p->validate[k] == 0)
                continue;
            buf_printf(out, "<tr><th scope=\"row\">%s</th>", sr_validate_state_name(k));
            num_cell(out, p->validate[k]);
            buf_puts(out, "</tr>\n");
        }
        if (p->validate_other) {
            buf_puts(out, "<tr><th scope=\"row\">other</th>");
            num_cell(out, p->validate_other);
            buf_puts(out, "</tr>\n");
        }
        buf_puts(out, "</tbody>\n</table>\n");
    }
    buf_puts(out, "</main>\n");
    page_foot(out, p->now);
}
