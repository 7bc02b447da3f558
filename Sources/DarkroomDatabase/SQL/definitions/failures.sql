-- Failed jobs with their whole error history (one entry per attempt), newest first; `code` is
-- the last attempt's (filtering by it or by batch reads an index: migration 0015).
CREATE OR REPLACE VIEW darkroom.failures AS
SELECT j.id AS job_id, j.asset_id, j.batch, j.attempts, j.crashes, j.last_error, j.errors, j.finished_at,
       j.errors -> -1 ->> 'code' AS code
  FROM darkroom.jobs AS j
 WHERE j.state = 'failed'
 ORDER BY j.finished_at DESC, j.id DESC;
