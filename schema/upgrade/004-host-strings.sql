-- 004-host-strings: the host's strings hold what the scheduler accepts
-- from a client: 255 bytes (LIM_NAME_LEN).  At 254, a request with a
-- 255-byte <p_model> or <domain_name> failed at the host update, so that
-- host could never be served.
ALTER TABLE host
    MODIFY domain_name  VARCHAR(255) NOT NULL DEFAULT '',
    MODIFY last_ip_addr VARCHAR(255) NOT NULL DEFAULT '',
    MODIFY host_cpid    VARCHAR(255) NOT NULL DEFAULT '',
    MODIFY p_vendor     VARCHAR(255) NOT NULL DEFAULT '',
    MODIFY p_model      VARCHAR(255) NOT NULL DEFAULT '',
    MODIFY os_name      VARCHAR(255) NOT NULL DEFAULT '',
    MODIFY os_version   VARCHAR(255) NOT NULL DEFAULT '';
