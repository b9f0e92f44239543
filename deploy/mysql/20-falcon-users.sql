-- Falcon's database users, each with only what it does (docs/deploy.md, "Database users and grants").
-- docker-compose runs this after 10-jobs.sql (table grants need the jobs table); in production a DBA runs it with
-- the database name and the passwords replaced (the passwords below are docker-compose's, never production's).
-- Table-level CREATE on a table that does not exist yet lets the status-sink apply its own migration and nothing
-- else: it cannot create any other table. The other users' grants on clusters, which the status-sink's migration
-- creates, are in 30-falcon-clusters-grants.sql, run once the status-sink has started (a table-level grant without
-- CREATE needs the table).

-- status-sink: writes the status columns of jobs, owns its migration's tables (clusters, falcon_status_versions)
-- and Flyway's history table.
CREATE USER IF NOT EXISTS 'falcon_sink'@'%' IDENTIFIED BY 'falcon-sink-dev';
GRANT SELECT, UPDATE ON falcon.jobs TO 'falcon_sink'@'%';
GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, ALTER, INDEX ON falcon.falcon_status_versions TO 'falcon_sink'@'%';
GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, ALTER, INDEX ON falcon.falcon_schema_history TO 'falcon_sink'@'%';
GRANT SELECT, CREATE, ALTER, INDEX ON falcon.clusters TO 'falcon_sink'@'%';

-- cdc-ingest (Debezium): reads the binlog and snapshots the two tables, nothing else (its snapshot takes no locks,
-- snapshot.locking.mode=none, so no RELOAD or LOCK TABLES).
CREATE USER IF NOT EXISTS 'falcon_cdc'@'%' IDENTIFIED BY 'falcon-cdc-dev';
GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'falcon_cdc'@'%';
GRANT SELECT ON falcon.jobs TO 'falcon_cdc'@'%';
-- and SELECT ON falcon.clusters (30-falcon-clusters-grants.sql)

-- the falcon CLI of operators (and seed-clusters): submit, abort and read jobs, register clusters. It does not delete
-- jobs and cannot create tables.
CREATE USER IF NOT EXISTS 'falcon_cli'@'%' IDENTIFIED BY 'falcon-cli-dev';
GRANT SELECT, INSERT, UPDATE ON falcon.jobs TO 'falcon_cli'@'%';
-- and SELECT, INSERT, UPDATE ON falcon.clusters (30-falcon-clusters-grants.sql)

-- the console (read-only web pages): reads jobs and clusters, nothing else.
CREATE USER IF NOT EXISTS 'falcon_console'@'%' IDENTIFIED BY 'falcon-console-dev';
GRANT SELECT ON falcon.jobs TO 'falcon_console'@'%';
-- and SELECT ON falcon.clusters (30-falcon-clusters-grants.sql)

-- the upper components: insert a job's request columns, abort (status and aborting_at) or re-prioritize it, read
-- every column back. They cannot write Falcon's columns (reason, message, cluster, names, times), insert a row
-- that shows a status, or touch the clusters table; 25-falcon-jobs-guard.sql refuses any status they write but
-- Aborting.
CREATE USER IF NOT EXISTS 'falcon_upper'@'%' IDENTIFIED BY 'falcon-upper-dev';
GRANT SELECT ON falcon.jobs TO 'falcon_upper'@'%';
GRANT INSERT (id, actor, name, tpu_type, topology, spec, supply_mode, timeout_seconds, priority, max_retries, created_at)
  ON falcon.jobs TO 'falcon_upper'@'%';
GRANT UPDATE (status, aborting_at, priority) ON falcon.jobs TO 'falcon_upper'@'%';
