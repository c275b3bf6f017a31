/*
 * sched_limits.h - every size cap that protects locsched from hostile input,
 * in one place, each with the reason for its value.
 *
 * The scheduler and the upload handler face the whole internet.  Every
 * buffer, count and number that comes from a client is bounded by one of
 * these.  A test exists at each limit and at limit + 1.
 */
#ifndef LOCSCHED_SCHED_LIMITS_H
#define LOCSCHED_SCHED_LIMITS_H

/* Largest scheduler request body we read.  Real 7.20 requests are 6-25 KB;
 * a client reporting 64 results with long stderr can reach a few hundred
 * KB.  mod_fcgid's FcgidMaxRequestLen is set a little higher (2,200,000 in
 * the example site and the sandbox), so that a body just over this limit
 * still reaches the scheduler and gets its "request too large" reply. */
#define LIM_REQUEST_BYTES        (2 * 1024 * 1024)

/* Deepest XML nesting accepted.  The deepest real path is
 * scheduler_request/working_global_preferences/global_preferences/x = 4;
 * 32 leaves room for future fields and refuses nesting bombs early. */
#define LIM_XML_DEPTH            32

/* Total elements in one request: a request with 64 reported results and
 * 2000 in-progress jobs has about 25,000. */
#define LIM_XML_ELEMENTS         50000

/* Longest text of one element we keep (names, platform, authenticator). */
#define LIM_NAME_LEN             255

/* Authenticators are 32 hex chars in BOINC; allow longer keys but cap. */
#define LIM_AUTH_LEN             64

/* Reported results per request.  The client reports at most 64 at once
 * unless a user forces more; 256 bounds the work of one transaction. */
#define LIM_REPORTED_RESULTS     256

/* In-progress jobs (ip_result / other_result) per request.  Hosts with
 * large buffers hold hundreds; 2000 bounds the EDF simulation. */
#define LIM_IP_RESULTS           2000

/* Sticky files a host may list. */
#define LIM_STICKY_FILES         2000

/* App versions the client may list. */
#define LIM_CLIENT_APP_VERSIONS  64

/* Coprocessor types per host (NVIDIA, AMD, Intel, plus a few non-GPU). */
#define LIM_COPROC_TYPES         8

/* Output files per reported result that we look at. */
#define LIM_RESULT_FILES         16

/* Jobs sent in one reply.  Keeps replies and claim statements small. */
#define LIM_JOBS_PER_REPLY       32

/* Longest work request we honour: 28 days of instance-seconds per
 * instance is already far beyond any real buffer (max 10 + 10 days). */
#define LIM_REQ_SECS_PER_INSTANCE (28.0 * 86400.0)

/* Largest instance count we believe (CPUs or coprocessors of one type). */
#define LIM_NINSTANCES           1024

/* Processing speeds above this (flops per instance) are rejected as absurd. */
#define LIM_FLOPS                1e16

#endif /* LOCSCHED_SCHED_LIMITS_H */
