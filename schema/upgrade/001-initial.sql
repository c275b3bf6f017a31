-- 001-initial.sql: locsched's first schema.
--
-- Table and column names, and numeric codes, follow the BOINC server where
-- the concept is the same, so administrators' knowledge carries over:
--   result.server_state: 1 INACTIVE, 2 UNSENT, 4 IN_PROGRESS, 5 OVER
--   result.outcome: 0 INIT, 1 SUCCESS, 2 COULDNT_SEND, 3 CLIENT_ERROR,
--                   4 NO_REPLY, 5 DIDNT_NEED, 6 VALIDATE_ERROR, 7 CLIENT_DETACHED
--   result.client_state: 5 FILES_UPLOADED (others as the client reports)
--   batch.state: 0 INIT, 1 IN_PROGRESS, 2 COMPLETE, 3 ABORTED, 4 RETIRED
-- Locality tables (batch_host, locality_cursor, workunit.cursor_id,
-- workunit.job_num) follow the locality redesign.  All InnoDB, utf8mb4.

CREATE TABLE platform (
    id              INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    create_time     INT NOT NULL DEFAULT 0,
    name            VARCHAR(254) NOT NULL,
    user_friendly_name VARCHAR(254) NOT NULL DEFAULT '',
    deprecated      TINYINT NOT NULL DEFAULT 0,
    UNIQUE KEY uk_platform_name (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE app (
    id              INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    create_time     INT NOT NULL DEFAULT 0,
    name            VARCHAR(254) NOT NULL,
    user_friendly_name VARCHAR(254) NOT NULL DEFAULT '',
    deprecated      TINYINT NOT NULL DEFAULT 0,
    UNIQUE KEY uk_app_name (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- An app version runs on one platform, for one plan class, and uses
-- avg_ncpus CPUs plus coproc_count instances of coproc_type ('' = CPU only).
-- Its speed on a host is the resource's peak flops times flops_scale.
CREATE TABLE app_version (
    id              INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    create_time     INT NOT NULL DEFAULT 0,
    appid           INT NOT NULL,
    version_num     INT NOT NULL,
    platformid      INT NOT NULL,
    plan_class      VARCHAR(254) NOT NULL DEFAULT '',
    avg_ncpus       DOUBLE NOT NULL DEFAULT 1,
    coproc_type     VARCHAR(64) NOT NULL DEFAULT '',
    coproc_count    DOUBLE NOT NULL DEFAULT 0,
    flops_scale     DOUBLE NOT NULL DEFAULT 1,
    api_version     VARCHAR(64) NOT NULL DEFAULT '',
    cmdline         VARCHAR(1024) NOT NULL DEFAULT '',
    deprecated      TINYINT NOT NULL DEFAULT 0,
    UNIQUE KEY uk_app_version (appid, platformid, version_num, plan_class),
    CONSTRAINT fk_av_app FOREIGN KEY (appid) REFERENCES app (id),
    CONSTRAINT fk_av_platform FOREIGN KEY (platformid) REFERENCES platform (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- The files of an app version, with their BOINC-format code signatures
-- (made offline with the project's code-signing key).
CREATE TABLE app_version_file (
    app_version_id  INT NOT NULL,
    seqno           INT NOT NULL,
    file_name       VARCHAR(254) NOT NULL,
    open_name       VARCHAR(254) NOT NULL DEFAULT '',
    url             VARCHAR(1024) NOT NULL,
    nbytes          DOUBLE NOT NULL,
    md5_cksum       CHAR(32) NOT NULL,
    file_signature  TEXT NOT NULL,
    main_program    TINYINT NOT NULL DEFAULT 0,
    copy_file       TINYINT NOT NULL DEFAULT 0,
    PRIMARY KEY (app_version_id, seqno),
    CONSTRAINT fk_avf_av FOREIGN KEY (app_version_id) REFERENCES app_version (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Accounts.  The scheduler finds a user by auth_hash (SHA-256 of the
-- authenticator) and then compares the authenticator in constant time.
CREATE TABLE user (
    id              INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    create_time     INT NOT NULL DEFAULT 0,
    email_addr      VARCHAR(254) NOT NULL,
    name            VARCHAR(254) NOT NULL DEFAULT '',
    authenticator   VARCHAR(254) NOT NULL,
    auth_hash       BINARY(32) NOT NULL,
    total_credit    DOUBLE NOT NULL DEFAULT 0,
    expavg_credit   DOUBLE NOT NULL DEFAULT 0,
    expavg_time     DOUBLE NOT NULL DEFAULT 0,
    teamid          INT NOT NULL DEFAULT 0,
    UNIQUE KEY uk_user_email (email_addr),
    UNIQUE KEY uk_user_authenticator (authenticator),
    UNIQUE KEY uk_user_auth_hash (auth_hash)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE host (
    id              INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    create_time     INT NOT NULL DEFAULT 0,
    userid          INT NOT NULL,
    rpc_seqno       INT NOT NULL DEFAULT 0,
    rpc_time        INT NOT NULL DEFAULT 0,
    total_credit    DOUBLE NOT NULL DEFAULT 0,
    expavg_credit   DOUBLE NOT NULL DEFAULT 0,
    expavg_time     DOUBLE NOT NULL DEFAULT 0,
    timezone        INT NOT NULL DEFAULT 0,
    domain_name     VARCHAR(254) NOT NULL DEFAULT '',
    last_ip_addr    VARCHAR(254) NOT NULL DEFAULT '',
    host_cpid       VARCHAR(254) NOT NULL DEFAULT '',
    p_ncpus         INT NOT NULL DEFAULT 0,
    p_vendor        VARCHAR(254) NOT NULL DEFAULT '',
    p_model         VARCHAR(254) NOT NULL DEFAULT '',
    p_fpops         DOUBLE NOT NULL DEFAULT 0,
    p_iops          DOUBLE NOT NULL DEFAULT 0,
    p_membw         DOUBLE NOT NULL DEFAULT 0,
    os_name         VARCHAR(254) NOT NULL DEFAULT '',
    os_version      VARCHAR(254) NOT NULL DEFAULT '',
    m_nbytes        DOUBLE NOT NULL DEFAULT 0,
    m_cache         DOUBLE NOT NULL DEFAULT 0,
    m_swap          DOUBLE NOT NULL DEFAULT 0,
    d_total         DOUBLE NOT NULL DEFAULT 0,
    d_free          DOUBLE NOT NULL DEFAULT 0,
    d_boinc_used_total   DOUBLE NOT NULL DEFAULT 0,
    d_boinc_used_project DOUBLE NOT NULL DEFAULT 0,
    on_frac         DOUBLE NOT NULL DEFAULT 1,
    connected_frac  DOUBLE NOT NULL DEFAULT 1,
    active_frac     DOUBLE NOT NULL DEFAULT 1,
    gpu_active_frac DOUBLE NOT NULL DEFAULT 1,
    n_usable_coprocs INT NOT NULL DEFAULT 0,
    -- per GPU type: instances and peak flops per instance
    gpu_nvidia_count      INT NOT NULL DEFAULT 0,
    gpu_nvidia_peak_flops DOUBLE NOT NULL DEFAULT 0,
    gpu_ati_count         INT NOT NULL DEFAULT 0,
    gpu_ati_peak_flops    DOUBLE NOT NULL DEFAULT 0,
    gpu_intel_count       INT NOT NULL DEFAULT 0,
    gpu_intel_peak_flops  DOUBLE NOT NULL DEFAULT 0,
    -- every coprocessor type as reported: "type count peak_flops" per line
    coprocs         VARCHAR(2048) NOT NULL DEFAULT '',
    duration_correction_factor DOUBLE NOT NULL DEFAULT 1,
    core_client_version VARCHAR(32) NOT NULL DEFAULT '',
    KEY ind_host_user (userid),
    KEY ind_host_rpc_time (rpc_time)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Per host and app version: the learned runtime correction (JC2).
CREATE TABLE host_app_version (
    host_id         INT NOT NULL,
    app_version_id  INT NOT NULL,
    et_n            INT NOT NULL DEFAULT 0,
    correction      DOUBLE NOT NULL DEFAULT 1,
    PRIMARY KEY (host_id, app_version_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE batch (
    id              INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    create_time     INT NOT NULL DEFAULT 0,
    name            VARCHAR(254) NOT NULL,
    appid           INT NOT NULL,
    state           TINYINT NOT NULL DEFAULT 0,
    locality        TINYINT NOT NULL DEFAULT 1,
    njobs           INT NOT NULL DEFAULT 0,
    nfiles          INT NOT NULL DEFAULT 0,
    delay_bound     INT NOT NULL DEFAULT 604800,
    target_nresults SMALLINT NOT NULL DEFAULT 1,
    min_quorum      SMALLINT NOT NULL DEFAULT 1,
    max_error_results SMALLINT NOT NULL DEFAULT 3,
    max_total_results SMALLINT NOT NULL DEFAULT 6,
    rsc_memory_bound DOUBLE NOT NULL DEFAULT 1e8,
    rsc_disk_bound  DOUBLE NOT NULL DEFAULT 1e9,
    max_out_nbytes  DOUBLE NOT NULL DEFAULT 1e7,
    fraction_done   DOUBLE NOT NULL DEFAULT 0,
    completion_time INT NOT NULL DEFAULT 0,
    description     VARCHAR(1024) NOT NULL DEFAULT '',
    UNIQUE KEY uk_batch_name (name),
    CONSTRAINT fk_batch_app FOREIGN KEY (appid) REFERENCES app (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- The files of a batch, in sequence.  Sticky input files are kept by
-- hosts across jobs; names encode the batch and the file number.
CREATE TABLE file (
    id              INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    batch_id        INT NOT NULL,
    file_num        INT NOT NULL,
    name            VARCHAR(254) NOT NULL,
    nbytes          DOUBLE NOT NULL DEFAULT 0,
    md5_cksum       VARCHAR(32) NOT NULL DEFAULT '',
    url             VARCHAR(1024) NOT NULL DEFAULT '',
    sticky          TINYINT NOT NULL DEFAULT 1,
    UNIQUE KEY uk_file_name (name),
    UNIQUE KEY uk_file_batch_num (batch_id, file_num),
    CONSTRAINT fk_file_batch FOREIGN KEY (batch_id) REFERENCES batch (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- The job description of a batch: job job_num uses files
-- [first_file_num, first_file_num + nfiles).  The work generator turns
-- these into workunits and results.
CREATE TABLE batch_job (
    batch_id        INT NOT NULL,
    job_num         INT NOT NULL,
    first_file_num  INT NOT NULL,
    nfiles          INT NOT NULL,
    rsc_fpops_est   DOUBLE NOT NULL,
    command_line    VARCHAR(1024) NOT NULL DEFAULT '',
    PRIMARY KEY (batch_id, job_num),
    CONSTRAINT fk_bj_batch FOREIGN KEY (batch_id) REFERENCES batch (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- A team of hosts working one range of a batch's jobs in job order.
CREATE TABLE locality_cursor (
    id              INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    batch_id        INT NOT NULL,
    first_job_num   INT NOT NULL,
    last_job_num    INT NOT NULL,
    expavg_credit   DOUBLE NOT NULL DEFAULT 0,
    remaining_credit DOUBLE NOT NULL DEFAULT 0,
    first_unfinished_job_num  INT NOT NULL,
    first_ungenerated_job_num INT NOT NULL,
    nhosts          INT NOT NULL DEFAULT 0,
    KEY ind_cursor_batch (batch_id),
    CONSTRAINT fk_cursor_batch FOREIGN KEY (batch_id) REFERENCES batch (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE batch_host (
    host_id         INT NOT NULL,
    batch_id        INT NOT NULL,
    cursor_id       INT NOT NULL,
    create_time     INT NOT NULL DEFAULT 0,
    PRIMARY KEY (host_id, batch_id),
    KEY ind_bh_cursor (cursor_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE workunit (
    id              INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    create_time     INT NOT NULL DEFAULT 0,
    appid           INT NOT NULL,
    name            VARCHAR(254) NOT NULL,
    batch           INT NOT NULL,
    cursor_id       INT NOT NULL DEFAULT 0,
    job_num         INT NOT NULL DEFAULT 0,
    first_file_num  INT NOT NULL DEFAULT 0,
    nfiles          INT NOT NULL DEFAULT 0,
    command_line    VARCHAR(1024) NOT NULL DEFAULT '',
    rsc_fpops_est   DOUBLE NOT NULL,
    rsc_fpops_bound DOUBLE NOT NULL,
    rsc_memory_bound DOUBLE NOT NULL,
    rsc_disk_bound  DOUBLE NOT NULL,
    max_out_nbytes  DOUBLE NOT NULL,
    delay_bound     INT NOT NULL,
    min_quorum      SMALLINT NOT NULL DEFAULT 1,
    target_nresults SMALLINT NOT NULL DEFAULT 1,
    max_error_results SMALLINT NOT NULL DEFAULT 3,
    max_total_results SMALLINT NOT NULL DEFAULT 6,
    max_success_results SMALLINT NOT NULL DEFAULT 6,
    canonical_resultid INT NOT NULL DEFAULT 0,
    canonical_credit DOUBLE NOT NULL DEFAULT 0,
    transition_time INT NOT NULL DEFAULT 0,
    need_validate   TINYINT NOT NULL DEFAULT 0,
    error_mask      INT NOT NULL DEFAULT 0,
    file_delete_state TINYINT NOT NULL DEFAULT 0,
    assimilate_state TINYINT NOT NULL DEFAULT 0,
    UNIQUE KEY uk_wu_name (name),
    KEY ind_wu_transition (transition_time),
    KEY ind_wu_cursor_job (cursor_id, job_num),
    KEY ind_wu_batch (batch)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- One replica of a workunit.  userid is NULL until the result is sent;
-- the unique key (workunitid, userid) makes the database itself refuse
-- two replicas of one job for one user.
CREATE TABLE result (
    id              INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    create_time     INT NOT NULL DEFAULT 0,
    workunitid      INT NOT NULL,
    name            VARCHAR(254) NOT NULL,
    appid           INT NOT NULL,
    batch           INT NOT NULL,
    cursor_id       INT NOT NULL DEFAULT 0,
    job_num         INT NOT NULL DEFAULT 0,
    server_state    TINYINT NOT NULL,
    outcome         TINYINT NOT NULL DEFAULT 0,
    client_state    TINYINT NOT NULL DEFAULT 0,
    validate_state  TINYINT NOT NULL DEFAULT 0,
    file_delete_state TINYINT NOT NULL DEFAULT 0,
    hostid          INT NOT NULL DEFAULT 0,
    userid          INT NULL DEFAULT NULL,
    app_version_id  INT NOT NULL DEFAULT 0,
    report_deadline INT NOT NULL DEFAULT 0,
    sent_time       INT NOT NULL DEFAULT 0,
    received_time   INT NOT NULL DEFAULT 0,
    flops_estimate  DOUBLE NOT NULL DEFAULT 0,
    cpu_time        DOUBLE NOT NULL DEFAULT 0,
    elapsed_time    DOUBLE NOT NULL DEFAULT 0,
    exit_status     INT NOT NULL DEFAULT 0,
    peak_working_set_size DOUBLE NOT NULL DEFAULT 0,
    peak_swap_size  DOUBLE NOT NULL DEFAULT 0,
    peak_disk_usage DOUBLE NOT NULL DEFAULT 0,
    granted_credit  DOUBLE NOT NULL DEFAULT 0,
    stderr_out      TEXT NULL,
    UNIQUE KEY uk_result_name (name),
    UNIQUE KEY uk_result_wu_user (workunitid, userid),
    KEY ind_res_st (server_state, id),
    KEY ind_res_cursor_unsent (cursor_id, server_state, job_num),
    KEY ind_res_host_state (hostid, server_state),
    KEY ind_res_deadline (server_state, report_deadline)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Which host holds (or was sent) which sticky file.
CREATE TABLE host_file (
    host_id         INT NOT NULL,
    file_id         INT NOT NULL,
    sent_time       INT NOT NULL DEFAULT 0,
    PRIMARY KEY (host_id, file_id),
    KEY ind_hf_file (file_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
