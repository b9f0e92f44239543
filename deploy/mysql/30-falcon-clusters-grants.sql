-- The grants on the clusters table, which the status-sink's migration creates: run after the status-sink's first
-- start (docker-compose: the db-grants service), since MySQL and MariaDB refuse a table grant without CREATE on a
-- table that does not exist. See 20-falcon-users.sql for the users.
GRANT SELECT ON falcon.clusters TO 'falcon_cdc'@'%';
GRANT SELECT, INSERT, UPDATE ON falcon.clusters TO 'falcon_cli'@'%';
GRANT SELECT ON falcon.clusters TO 'falcon_console'@'%';
