-- docker-compose only: the falcon user (created by the image from MYSQL_USER, with all rights on MYSQL_DATABASE)
-- also reads the binlog for cdc-ingest (Debezium's MySQL connector: REPLICATION SLAVE/CLIENT, RELOAD, SELECT).
GRANT REPLICATION SLAVE, REPLICATION CLIENT, RELOAD, SELECT ON *.* TO 'falcon'@'%';
FLUSH PRIVILEGES;
