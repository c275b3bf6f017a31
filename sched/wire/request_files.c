/*
 * request_files.c - the sticky file list of a scheduler request (the
 * top-level <file_info> elements): its table, check and part of the dump.
 */
#include "request_internal.h"

static const struct field sticky_fields[] = {
    FSTR("name", RS, name, 0),
    FDBL("nbytes", RS, nbytes, 0, SRQ_MAX_BYTES, 0),
    FINT("status", RS, status, SRQ_INT_MIN, 1),
};

const struct ctx_table srq_sticky_table = TABLE(sticky_fields);

int srq_validate_files(const struct sched_request *req, char *err, size_t errlen)
{
    for (int i = 0; i < req->nsticky_files; i++)
        if (!req->sticky_files[i].name[0])
            return srq_verr(err, errlen, SRQ_ERR_MISSING, "sticky <file_info> #%d has no <name>",
                        i + 1);
    return SRQ_OK;
}

void srq_dump_files(const struct sched_request *r, FILE *out)
{
    char p[64];
    const char *t = "";

    srq_dump_i(out, t, "nsticky_files", r->nsticky_files);
    for (int i = 0; i < r->nsticky_files; i++) {
        const struct req_sticky_file *x = &r->sticky_files[i];
        snprintf(p, sizeof p, "sticky_files[%d].", i);
        srq_dump_s(out, p, "name", x->name);
        srq_dump_d(out, p, "nbytes", x->nbytes);
        srq_dump_i(out, p, "status", x->status);
    }
}
