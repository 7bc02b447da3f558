-- Every state appears, with 0 when no job is in it. The counts come from darkroom.job_counts
-- (kept by triggers, definitions/job_counts.sql), so a million queued jobs are not counted on
-- every read; oldest_run_at is given for queued and running jobs (an index lookup each).
CREATE OR REPLACE VIEW darkroom.queue_summary AS
SELECT s.state,
       coalesce((SELECT sum(c.jobs) FROM darkroom.job_counts AS c WHERE c.state = s.state), 0)::bigint AS count,
       CASE s.state
           WHEN 'queued' THEN (SELECT min(j.run_at) FROM darkroom.jobs AS j WHERE j.state = 'queued')
           WHEN 'running' THEN (SELECT min(j.run_at) FROM darkroom.jobs AS j WHERE j.state = 'running')
       END AS oldest_run_at
  FROM unnest(ARRAY['queued', 'running', 'succeeded', 'failed', 'cancelled']) WITH ORDINALITY AS s(state, ordinal)
 ORDER BY s.ordinal;
