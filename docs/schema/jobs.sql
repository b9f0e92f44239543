-- Reference DDL of the jobs table. The upper components own this table; Falcon reads the request columns
-- (id .. priority and max_retries, status = 'Aborting' with aborting_at) and writes the scheduling columns.
-- priority: higher is picked first within a (cluster, topology) queue, -1000..1000; NULL means spec.priority if
-- the spec has one, else 0 (upper components that cannot change their schema put it in the spec instead).
-- max_retries: how many times a job runs again after the fleet (not its program) ended an attempt, 0..10; NULL means
-- spec.retry.max_retries if the spec has one, else falcon.scheduler.retry.max-retries (0).
-- Works on MySQL 8 and MariaDB 10.11+. Tests create the table from this file. InnoDB appends the primary key (id) to
-- every secondary key, so (status, created_at) orders by (status, created_at, id). idx_jobs_queue, _actor, _cluster
-- and _created serve the console's pages, each a keyset page read along one index (docs/console.md): a queue's
-- jobs by phase in submission order, and the job list newest first, whole or by actor, status or cluster.
CREATE TABLE IF NOT EXISTS jobs (
  id              VARCHAR(64)  NOT NULL,
  actor           VARCHAR(128) NOT NULL,
  name            VARCHAR(255) NOT NULL,
  tpu_type        VARCHAR(32)  NOT NULL,
  topology        VARCHAR(32)  NOT NULL,
  spec            TEXT         NOT NULL,
  supply_mode     VARCHAR(16)  NULL,
  timeout_seconds BIGINT       NULL,
  priority        INT          NULL,
  max_retries     INT          NULL,
  status          VARCHAR(16)  NOT NULL DEFAULT 'Pending',
  reason          VARCHAR(32)  NULL,
  message         TEXT         NULL,
  cluster_id      VARCHAR(64)  NULL,
  node_pool_name  VARCHAR(64)  NULL,
  k8s_job_name    VARCHAR(64)  NULL,
  job_uid         VARCHAR(64)  NULL,
  created_at      TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  dispatched_at   TIMESTAMP(3) NULL,
  finished_at     TIMESTAMP(3) NULL,
  aborting_at     TIMESTAMP(3) NULL,
  aborted_at      TIMESTAMP(3) NULL,
  updated_at      TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
  PRIMARY KEY (id),
  KEY idx_jobs_status (status, created_at),
  KEY idx_jobs_queue (cluster_id, topology, status, reason, created_at),
  KEY idx_jobs_actor (actor, created_at),
  KEY idx_jobs_cluster (cluster_id, created_at),
  KEY idx_jobs_created (created_at)
);
