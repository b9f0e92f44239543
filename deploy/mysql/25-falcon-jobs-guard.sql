-- What a column grant cannot say: the upper components (falcon_upper, 20-falcon-users.sql) may write the status
-- column, but only to abort. Any other status they write (Succeeded on someone else's running job, Pending on an
-- ended one) is refused by the database, so no tenant can finish, revive or fake another's job. The status-sink
-- (falcon_sink) and operators (falcon_cli) are not affected. USER() is the session's login (CURRENT_USER() inside a
-- trigger is its definer). docker-compose runs this at MySQL's first start, after 10-jobs.sql.
DROP TRIGGER IF EXISTS falcon_jobs_upper_status;
DELIMITER //
CREATE TRIGGER falcon_jobs_upper_status BEFORE UPDATE ON jobs FOR EACH ROW
BEGIN
  IF SUBSTRING_INDEX(USER(), '@', 1) = 'falcon_upper'
      AND NOT (NEW.status <=> OLD.status)
      AND NEW.status <> 'Aborting' THEN
    SIGNAL SQLSTATE '45000'
      SET MESSAGE_TEXT = 'falcon_upper may set a job''s status only to Aborting (docs/deploy.md)';
  END IF;
END//
DELIMITER ;
