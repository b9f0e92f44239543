-- The newest task-status version Falcon wrote per job. Falcon-owned, beside the upper components' jobs table
-- (whose schema Falcon does not change): the status-sink skips any event not newer than the one it applied,
-- so a batch replayed after a crash never moves a row back, even for a moment.
CREATE TABLE falcon_status_versions (
  job_id  VARCHAR(64) NOT NULL,
  version BIGINT      NOT NULL,
  PRIMARY KEY (job_id)
);
