/*
 * account_reply.c - write the XML replies of the account web RPCs
 * (see account_reply.h).  Pure: appends to a buffer, no I/O.
 */
#include "account_reply.h"

#include <stdio.h>

void account_reply_error(struct buf *b, int error_num, const char *msg)
{
    buf_puts(b, "<error>\n");
    buf_printf(b, "    <error_num>%d</error_num>\n", error_num);
    buf_elem(b, "    ", "error_msg", msg ? msg : "");
    buf_puts(b, "</error>\n");
}

void account_reply_authenticator(struct buf *b, const char *authenticator)
{
    buf_puts(b, "<account_out>\n");
    buf_elem(b, "    ", "authenticator", authenticator);
    buf_puts(b, "</account_out>\n");
}

void account_reply_project_config(struct buf *b, const struct project_config_info *p)
{
    int i;
    buf_puts(b, "<project_config>\n");
    buf_elem(b, "    ", "name", p->name ? p->name : "");
    buf_elem(b, "    ", "master_url", p->master_url ? p->master_url : "");
    buf_elem(b, "    ", "web_rpc_url_base", p->master_url ? p->master_url : "");
    buf_printf(b, "    <min_passwd_length>%d</min_passwd_length>\n", p->min_passwd_length);
    if (p->creation_disabled)
        buf_puts(b, "    <account_creation_disabled/>\n");
    if (p->sched_stopped)
        buf_puts(b, "    <sched_stopped/>\n");
    if (p->min_client_version > 0)
        buf_printf(b, "    <min_client_version>%d</min_client_version>\n", p->min_client_version);
    if (p->terms_of_use && p->terms_of_use[0])
        buf_elem(b, "    ", "terms_of_use", p->terms_of_use);
    if (p->n_platforms > 0) {
        buf_puts(b, "    <platforms>\n");
        for (i = 0; i < p->n_platforms; i++) {
            buf_puts(b, "        <platform>\n");
            buf_elem(b, "            ", "platform_name", p->platforms[i]);
            buf_puts(b, "        </platform>\n");
        }
        buf_puts(b, "    </platforms>\n");
    }
    buf_puts(b, "</project_config>\n");
}
