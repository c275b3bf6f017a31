/*
 * account_reply.h - the XML replies of the account web RPCs, as the BOINC
 * client 7.20 reads them (it looks for error_num, error_msg and
 * authenticator anywhere in the reply, and for the project_config
 * elements under <project_config>).
 *
 * Pure: each writer appends to a struct buf (buf.h); every text is
 * XML-escaped.  The caller sends the buffer with its HTTP headers.
 */
#ifndef LOCSCHED_ACCOUNT_REPLY_H
#define LOCSCHED_ACCOUNT_REPLY_H

#include "buf.h"

/* <error><error_num>N</error_num><error_msg>MSG</error_msg></error> */
void account_reply_error(struct buf *b, int error_num, const char *msg);

/* <account_out><authenticator>KEY</authenticator></account_out>, the
 * reply of a successful create_account or lookup_account. */
void account_reply_authenticator(struct buf *b, const char *authenticator);

/* What get_project_config tells the client about the project. */
struct project_config_info {
    const char *name;                /* the project's name */
    const char *master_url;          /* master URL, ending in '/' */
    int min_passwd_length;           /* the Manager checks it before hashing */
    int creation_disabled;           /* account creation closed */
    int sched_stopped;               /* project stopped by the administrator */
    int min_client_version;          /* e.g. 72000 for 7.20.0; 0: none */
    const char *terms_of_use;        /* NULL or "": none */
    const char *const *platforms;    /* names of the platforms with apps */
    int n_platforms;
};

void account_reply_project_config(struct buf *b, const struct project_config_info *p);

#endif
