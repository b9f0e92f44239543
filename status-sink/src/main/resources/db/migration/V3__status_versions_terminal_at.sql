-- When Falcon last wrote a terminal status (Succeeded, Failed, Aborted) of the job, NULL while it is not terminal.
-- The status-sink deletes rows whose terminal write is older than falcon.sink.terminal-retention, so the table
-- holds the jobs in flight and the recently finished ones instead of every job ever run. A terminal jobs row
-- without a version row is sealed by the write guard (StatusWriter), so a pruned row loses nothing.
ALTER TABLE falcon_status_versions
  ADD COLUMN terminal_at TIMESTAMP(3) NULL DEFAULT NULL,
  ADD KEY idx_falcon_status_versions_terminal_at (terminal_at);

-- Jobs already terminal before this migration start their retention now.
UPDATE falcon_status_versions v
  JOIN jobs j ON j.id = v.job_id
   SET v.terminal_at = CURRENT_TIMESTAMP(3)
 WHERE j.status IN ('Succeeded', 'Failed', 'Aborted');
