/*
 * emu_proto.h - the emulated client's side of the wire protocol: the
 * <scheduler_request> a BOINC 7.20 client would send for an RPC
 * (emu_client.h's emu_ask), and the parts of a <scheduler_reply> the
 * client acts on.  Pure: builds and parses text, no I/O.
 */
#ifndef LOCSCHED_EMU_PROTO_H
#define LOCSCHED_EMU_PROTO_H

#include "buf.h"
#include "emu_client.h"
#include "emu_sets.h"

#define EMU_RNAME 256

/* What identifies the host and its app versions in requests. */
struct emu_req_info {
    const char *authenticator;
    const char *platform;
    const char *app_name;
    int version_num;               /* of the CPU and the GPU version */
    const char *gpu_plan_class;
    const char *gpu_type;          /* coprocessor type of the GPU ("NVIDIA") */
    int host_index;                /* for host_cpid */
};

/*
 * Write the request of one RPC to project ask->proj: host description,
 * per-resource work request, reports of the project's finished jobs, the
 * sticky files held (names from files), app versions, other_results and,
 * once asked for, in_progress_results.  Returns 0, -1 when out of memory.
 */
int emu_request_write(struct buf *b, const struct emu_client *c, const struct emu_ask *ask,
                      const struct emu_req_info *ri, const struct emu_names *files, double now);

struct emu_rfile {
    char name[EMU_RNAME];
    double nbytes;
    int sticky;
    int executable;
};

struct emu_rav {
    char app_name[64];
    int version_num;
    char plan_class[64];
    char coproc[32];
    double flops;
};

struct emu_rwu {
    char name[EMU_RNAME];
    double rsc_fpops_est;
    char files[EMU_MAX_JOB_FILES][EMU_RNAME];
    int nfiles;
};

struct emu_rresult {
    char name[EMU_RNAME];
    char wu_name[EMU_RNAME];
    double report_deadline;
    int version_num;
    char plan_class[64];
};

#define EMU_R_MAX_JOBS 64
#define EMU_R_MAX_FILES 512
#define EMU_R_MAX_ACKS 512
#define EMU_R_MAX_DELETES 4096
#define EMU_R_MAX_ABORTS 512
#define EMU_R_MAX_AVS 8
#define EMU_R_MAX_RSC 8

struct emu_reply {
    long long hostid;
    double request_delay;
    double next_rpc_delay;         /* 0 if none */
    int send_full_workload;
    struct emu_rfile files[EMU_R_MAX_FILES];
    int nfiles;
    struct emu_rav avs[EMU_R_MAX_AVS];
    int navs;
    struct emu_rwu wus[EMU_R_MAX_JOBS];
    int nwus;
    struct emu_rresult results[EMU_R_MAX_JOBS];
    int nresults;
    char acks[EMU_R_MAX_ACKS][EMU_RNAME];
    int nacks;
    char deletes[EMU_R_MAX_DELETES][EMU_RNAME];
    int ndeletes;
    char aborts[EMU_R_MAX_ABORTS][EMU_RNAME];  /* <result_abort...>'s names */
    int abort_always[EMU_R_MAX_ABORTS];      /* 1: <result_abort>; 0: ..._if_not_started */
    int naborts;
    char no_rsc_apps[EMU_R_MAX_RSC][32];
    int nno_rsc_apps;
    char no_work_rsc[EMU_R_MAX_RSC][32];
    char no_work_reason[EMU_R_MAX_RSC][32];
    int nno_work;
    int overflow;                  /* more entries than the arrays hold */
};

/*
 * Parse a reply (len bytes).  The struct is large: allocate it once.
 * Returns 0 for a well-formed <scheduler_reply>, -1 otherwise.
 */
int emu_reply_parse(struct emu_reply *r, const char *body, size_t len);

const struct emu_rwu *emu_reply_wu(const struct emu_reply *r, const char *name);
const struct emu_rfile *emu_reply_file(const struct emu_reply *r, const char *name);
const struct emu_rav *emu_reply_av(const struct emu_reply *r, int version_num,
                                   const char *plan_class);

#endif
