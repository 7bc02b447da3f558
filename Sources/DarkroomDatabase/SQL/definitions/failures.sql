-- Failed jobs with their whole error history (one entry per attempt), newest first.
CREATE OR REPLACE VIEW darkroom.failures AS
SELECT j.id AS job_id, j.asset_id, j.batch, j.attempts, j.crashes, j.last_error, j.errors, j.finished_at
  FROM darkroom.jobs AS j
 WHERE j.state = 'failed'
 ORDER BY j.finished_at DESC, j.id DESC;
