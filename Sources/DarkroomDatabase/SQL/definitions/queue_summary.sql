-- Operators' views: the queue at a glance.

-- Every state appears, with 0 when no job is in it.
CREATE OR REPLACE VIEW darkroom.queue_summary AS
SELECT s.state, count(j.id) AS count, min(j.run_at) AS oldest_run_at
  FROM unnest(ARRAY['queued', 'running', 'succeeded', 'failed', 'cancelled']) WITH ORDINALITY AS s(state, ordinal)
  LEFT JOIN darkroom.jobs AS j ON j.state = s.state
 GROUP BY s.state, s.ordinal
 ORDER BY s.ordinal;

CREATE OR REPLACE VIEW darkroom.recent_failures AS
SELECT id AS job_id, asset_id, attempts, last_error, finished_at
  FROM darkroom.jobs
 WHERE state = 'failed'
 ORDER BY finished_at DESC, id DESC;

-- Failed jobs with their whole error history (one entry per attempt), newest first.
CREATE OR REPLACE VIEW darkroom.failures AS
SELECT j.id AS job_id, j.asset_id, j.batch, j.attempts, j.crashes, j.last_error, j.errors, j.finished_at
  FROM darkroom.jobs AS j
 WHERE j.state = 'failed'
 ORDER BY j.finished_at DESC, j.id DESC;
