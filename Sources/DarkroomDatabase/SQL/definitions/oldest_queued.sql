-- The queued job that has waited longest since it became due (no row when none is queued).
CREATE OR REPLACE VIEW darkroom.oldest_queued AS
SELECT j.id AS job_id, j.run_at, greatest(extract(epoch FROM now() - j.run_at), 0) AS age_seconds
  FROM darkroom.jobs AS j
 WHERE j.state = 'queued'
 ORDER BY j.run_at, j.id
 LIMIT 1;
