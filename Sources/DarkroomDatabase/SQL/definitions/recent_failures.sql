-- Failed jobs, newest first, with the last error (darkroom.failures has every attempt).
CREATE OR REPLACE VIEW darkroom.recent_failures AS
SELECT id AS job_id, asset_id, attempts, last_error, finished_at
  FROM darkroom.jobs
 WHERE state = 'failed'
 ORDER BY finished_at DESC, id DESC;
